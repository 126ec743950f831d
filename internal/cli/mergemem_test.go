package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// merge decodes the next input while the last is added, but not after a
// large profile that takes more than the memory bound grants its input:
// those (a bundle of 256k functions and locations, merged three times)
// are held one at a time beside the bundle's tables, not two at once.
func TestMergeLargeInputsOneAtATime(t *testing.T) {
	if testing.Short() {
		t.Skip("three profiles of 256k locations")
	}
	dir := t.TempDir()
	name, one := ownLocationsFile(t, dir)
	// As a bundle, about 20 bytes an entry: the profile takes more than
	// the memory bound grants its input.
	b := filepath.Join(dir, "a.ppxb")
	run(t, nil, ExitOK, "merge", "-o", b, name)
	names := []string{b, b, b}
	args := append([]string{"merge", "-o", filepath.Join(dir, "out.ppxb")}, names...)
	s := newStreams(nil)
	var code int
	peak := int64(memcheck.Peak(func() { code = Main(args, s.ios) }))
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %q", code, s.err)
	}
	// The bundle's tables take about what the profile does, the tables
	// block read and decoded about as much again: 3.5 times one profile,
	// 4.4 to 4.7 with the next input decoded beside the one added.
	t.Logf("a profile takes %.1f MiB; merging it thrice held %.1f at most", float64(one)/(1<<20), float64(peak)/(1<<20))
	if bound := 4 * one; peak > bound {
		t.Errorf("merging held %d bytes at once, want %d at most (4 times one profile)", peak, bound)
	}
}

// merge --sum adds each input as it is read: three large ones (256k
// functions and locations) take the sum and one input at a time, not all
// of them at once.
func TestSumInputsOneAtATime(t *testing.T) {
	if testing.Short() {
		t.Skip("three profiles of 256k locations")
	}
	dir := t.TempDir()
	name, one := ownLocationsFile(t, dir)
	args := []string{"merge", "--sum", "-o", filepath.Join(dir, "sum.pb.gz"), name, name, name}
	s := newStreams(nil)
	var code int
	peak := int64(memcheck.Peak(func() { code = Main(args, s.ios) }))
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %q", code, s.err)
	}
	// 2.6 to 2.8 times one profile; 4.3 to 4.4 while every input was
	// read before any was added.
	t.Logf("a profile takes %.1f MiB; summing it thrice held %.1f at most", float64(one)/(1<<20), float64(peak)/(1<<20))
	if bound := one * 7 / 2; peak > bound {
		t.Errorf("summing held %d bytes at once, want %d at most (3.5 times one profile)", peak, bound)
	}
}

// ownLocationsFile writes a pprof file of 256k functions, each at its own
// location, in dir, and returns its name and what the profile takes in
// memory.
func ownLocationsFile(t *testing.T, dir string) (string, int64) {
	t.Helper()
	p := synth.OwnLocations(1<<18, 256)
	name := filepath.Join(dir, "a.pb")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.Encode(f, p, pprof.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return name, p.MemSize()
}
