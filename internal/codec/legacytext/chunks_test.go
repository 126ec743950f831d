package legacytext

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/modeldump"
)

// decodeBoth reads data whole and in runs of one record each: the same
// profile, or the same error.
func decodeBoth(t *testing.T, data []byte) (whole, runs string, ok bool) {
	t.Helper()
	defer func(n int) { chunkBytes = n }(chunkBytes)
	dump := func(p *model.Profile, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return modeldump.Describe(p)
	}
	chunkBytes = math.MaxInt
	whole = dump(Decode(data, Options{}))
	chunkBytes = 1
	runs = dump(Decode(data, Options{}))
	_, ok = splitRuns(data, 1)
	return whole, runs, ok
}

// A text read a record at a time is the profile read whole: every fixture
// of a kind read in runs, with its records each in a run of its own.
func TestRunsSameAsWhole(t *testing.T) {
	var split []string
	for _, f := range fixtures(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		whole, runs, ok := decodeBoth(t, data)
		if !ok {
			continue
		}
		split = append(split, filepath.Base(f))
		if strings.HasPrefix(whole, "error") {
			t.Errorf("%s: %s", f, whole)
		}
		if whole != runs {
			t.Errorf("%s: read in runs:\n%s\nwhole:\n%s", f, runs, whole)
		}
		l, _ := splitRuns(data, 1)
		if _, err := decodeRuns(data, l, nil); err != nil {
			t.Errorf("%s: runs: %v", f, err)
		}
	}
	t.Logf("read in runs: %v", split)
	// Heap (4), contention (cppbench, Go block) and Go threadcreate; the
	// rest are one record, or not read in runs (threadz, Java, the Go
	// goroutine text with labels).
	if len(split) != 7 {
		t.Errorf("%d fixtures read in runs, want 7", len(split))
	}
}

// What google/pprof does for a whole text only: a catch-all mapping for
// addresses no mapping holds (a run whose addresses all have one has
// none), added when a run has it; a mapping widened to an address just
// below it (a run without that address does not widen it), which has the
// text read whole. Either way the profile is the whole text's.
func TestRunsMappings(t *testing.T) {
	for _, c := range []struct {
		addr    uint64
		whole   bool
		mapping string
	}{
		{0x90000001, false, "[0x0-0xffffffffffffffff@0x0"},
		{0xe00001, true, "[0xe00000-0x1000000@0x0"},
	} {
		var text bytes.Buffer
		text.WriteString("heap profile: 4: 4 [4: 4] @ heap/1048576\n")
		for i := range 40 {
			addr := uint64(0x401000 + i)
			if i == 25 {
				addr = c.addr
			}
			fmt.Fprintf(&text, "1: 1 [1: 1] @ %#x 0x401000\n", addr)
		}
		text.WriteString("MAPPED_LIBRARIES:\n")
		text.WriteString("00400000-00500000 r-xp 00000000 00:00 0 /bin/a\n")
		text.WriteString("00f00000-01000000 r-xp 00100000 00:00 0 /bin/b\n")
		whole, runs, ok := decodeBoth(t, text.Bytes())
		if !ok || strings.HasPrefix(whole, "error") {
			t.Fatalf("%#x: split %v: %s", c.addr, ok, whole)
		}
		if whole != runs {
			t.Errorf("%#x: read in runs:\n%s\nwhole:\n%s", c.addr, runs, whole)
		}
		if !strings.Contains(whole, c.mapping) {
			t.Errorf("%#x: no mapping %s:\n%s", c.addr, c.mapping, whole)
		}
		l, _ := splitRuns(text.Bytes(), 1)
		if _, err := decodeRuns(text.Bytes(), l, nil); (err == errDisagree) != c.whole {
			t.Errorf("%#x: runs: %v, want read whole %v", c.addr, err, c.whole)
		}
	}
}

// An error names the line of the whole text, read whole or in runs.
func TestRunsErrors(t *testing.T) {
	good, _ := os.ReadFile("../../../testdata/legacy/gobench.heap")
	lines := strings.SplitAfter(string(good), "\n")
	for i, bad := range []string{
		strings.Join(lines[:9], "") + "1: x [3: 4] @ 0x1\n" + strings.Join(lines[9:], ""),
		string(good) + "1: x @ 0x1\n",
	} {
		whole, runs, ok := decodeBoth(t, []byte(bad))
		if !ok {
			t.Fatalf("case %d: not split", i)
		}
		if !strings.HasPrefix(whole, "error: legacy text: line ") || whole != runs {
			t.Errorf("case %d: read in runs: %s\nwhole: %s", i, runs, whole)
		}
	}
}
