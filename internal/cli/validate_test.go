package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
)

// TestValidate: valid files pass (exit 0); a v1development file with an
// index out of range fails with the violation named by its path (exit 1);
// a file pprofx cannot read is an error line too.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "heap.otlp")
	run(t, nil, ExitOK, "convert", "../../testdata/go/heap.pb.gz", "-o", good)
	s := run(t, nil, ExitOK, "validate", good, "../../testdata/otlp-dev/cpu.otlp", cpuFixture)
	if o := s.out.String(); strings.Count(o, ": valid") != 3 || strings.Contains(o, "error") {
		t.Errorf("stdout:\n%s", o)
	}
	// Break profiles[0].samples[3].stack_index.
	pd := &pb.ProfilesData{}
	if err := proto.Unmarshal(mustRead(t, good), pd); err != nil {
		t.Fatal(err)
	}
	pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0].Samples[3].StackIndex = 9000
	data, err := proto.Marshal(pd)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.otlp")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = run(t, nil, ExitFail, "validate", bad, junk)
	o := s.out.String()
	if !strings.Contains(o, bad+": error: resource_profiles[0].scope_profiles[0].profiles[0].samples[3].stack_index: 9000 beyond stack_table (") || !strings.Contains(o, bad+": otlp: invalid: 1 errors") ||
		!strings.Contains(o, junk+": error: unknown format") {
		t.Errorf("stdout:\n%s", o)
	}
}
