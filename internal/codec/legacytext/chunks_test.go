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
	defer func(n, r int) { chunkBytes, perRead = n, r }(chunkBytes, perRead)
	dump := func(p *model.Profile, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return modeldump.Describe(p)
	}
	chunkBytes = math.MaxInt
	whole = dump(Decode(data, Options{}))
	chunkBytes, perRead = 1, 0
	runs = dump(Decode(data, Options{}))
	_, ok = splitRuns(data, 1)
	return whole, runs, ok
}

// oneRecordRuns cuts data into runs of one record each.
func oneRecordRuns(data []byte) layout {
	defer func(r int) { perRead = r }(perRead)
	perRead = 0
	l, _ := splitRuns(data, 1)
	return l
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
		if _, err := decodeRuns(data, oneRecordRuns(data), nil); err != nil {
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
		if _, err := decodeRuns(text.Bytes(), oneRecordRuns(text.Bytes()), nil); (err == errDisagree) != c.whole {
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

// Every run reads the header and the memory map again: a run is at least
// perRead times them (perRead times the run's size at most), so that a
// long memory map is not read once a record.
func TestRunsLongTail(t *testing.T) {
	defer func(n int) { chunkBytes = n }(chunkBytes)
	chunkBytes = 8 << 10
	var text bytes.Buffer
	text.WriteString("heap profile: 4: 4 [4: 4] @ heap/1048576\n")
	for i := range 10000 {
		fmt.Fprintf(&text, "1: 1 [1: 1] @ %#x\n", 0x401000+i)
	}
	text.WriteString("MAPPED_LIBRARIES:\n")
	for i := range 100 {
		fmt.Fprintf(&text, "%08x-%08x r-xp 00000000 00:00 0 /lib/lib%d.so\n", 0x10000000+i*0x10000, 0x10008000+i*0x10000, i)
	}
	// 5.3 KiB of header and memory map: runs of 4 times that, not 8 KiB; runs of 4
	// KiB, not 1, where 4 times the map is more than 4 times the size.
	for _, c := range []struct{ size, want int }{{1 << 10, 4 << 10}, {8 << 10, 4 * 5449}} {
		l, ok := splitRuns(text.Bytes(), c.size)
		if !ok {
			t.Fatal("not split")
		}
		if n := len(l.head) + len(l.tail); n != 5449 {
			t.Fatalf("header and memory map: %d bytes, want 5449", n)
		}
		for k := 0; k+2 < len(l.cuts); k++ {
			if n := l.cuts[k+1] - l.cuts[k]; n < c.want || n > c.want+22 {
				t.Errorf("size %d: run %d: %d bytes, want %d to a line (22 bytes) more", c.size, k, n, c.want)
			}
		}
	}
	whole, runs, _ := decodeBoth(t, text.Bytes())
	if whole != runs {
		t.Errorf("read in runs:\n%s\nwhole:\n%s", runs, whole)
	}
}

// Records of equal values read in runs share one row of values, those of
// the first run too: a text of millions of equal records holds one row
// for each change of values, not one per record.
func TestRunsShareRows(t *testing.T) {
	var text bytes.Buffer
	text.WriteString("heap profile: 4: 4 [4: 4] @ heap/1048576\n")
	for i := range 100 {
		n := 1
		if i == 50 {
			n = 2
		}
		fmt.Fprintf(&text, "%d: %d [%d: %d] @ 0x401000\n", n, n, n, n)
	}
	p, err := decodeRuns(text.Bytes(), oneRecordRuns(text.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[*int64]bool{}
	for i := range p.Samples {
		rows[&p.Samples[i].Values()[0]] = true
	}
	if len(p.Samples) != 100 || len(rows) != 3 {
		t.Errorf("%d samples with %d rows of values, want 100 with 3", len(p.Samples), len(rows))
	}
}
