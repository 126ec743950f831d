package legacytext

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/memlimit"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// Under a memory limit, a text whose reading would take more than the
// limit leaves is refused in one line before it starts. google/pprof's
// reading of a text whole (threadz here) takes about 750 bytes a line;
// a text of one record a line (heap, mutex) is read a run of records at
// a time, each of its records taking about 80 bytes in the profile.
// Every fixture is read under a limit of 16 MiB.
func TestRefusedUnderLimit(t *testing.T) {
	heap := lines("heap profile: 1: 1 [1: 1] @ heap/1048576\n", "1: 1 [1: 1] @ 0x1\n", 100_000)
	mutex := lines("--- mutex:\ncycles/second=2596123749\nsampling period=1\n", "1331850 6 @ 0x4e70d9 0x4e70d8\n", 100_000)
	threadz := append(lines("--- threadz 1 ---\n\n", "--- Thread 7f794ab90940 (name: main/14748) stack: ---\n  PC:  0x00bc8f1c: helper(arg *)\n", 50_000), "--- Memory map: ---\n"...)
	defer model.SetMemoryAvailable(0)
	model.SetMemoryInUse(func() int64 { return 0 }, 0)
	for _, c := range []struct {
		text  []byte
		limit int64
		want  string // "" for none
	}{
		{heap, 16 << 20, "100000 records, read 256 KiB at a time"},
		{heap, 40 << 20, ""}, // read whole it needs 80 MB
		{mutex, 16 << 20, "100000 records, read 256 KiB at a time"},
		{mutex, 40 << 20, ""},
		{threadz, 40 << 20, "google/pprof's reading of 100004 lines"},
		{threadz, 160 << 20, ""},
	} {
		model.SetMemoryAvailable(c.limit)
		_, err := Decode(c.text, Options{})
		if c.want == "" && err != nil {
			t.Errorf("%.20q under a limit of %d MiB: %v", c.text, c.limit>>20, err)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "\n")) {
			t.Errorf("%.20q under a limit of %d MiB: %v, want a one-line refusal (%s)", c.text, c.limit>>20, err, c.want)
		}
	}
	model.SetMemoryAvailable(16 << 20)
	for _, f := range fixtures(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(data, Options{}); err != nil {
			t.Errorf("%s under a limit of 16 MiB: %v", f, err)
		}
	}
	model.SetMemoryAvailable(0)
	for _, text := range [][]byte{heap, mutex, threadz} {
		if _, err := Decode(text, Options{}); err != nil {
			t.Errorf("%.20q without a limit: %v", text, err)
		}
	}
}

// lines is head followed by n times line.
func lines(head, line string, n int) []byte {
	return append([]byte(head), bytes.Repeat([]byte(line), n)...)
}

// A text of one record a line read in runs holds the profile and one
// run's reading at a time, not google/pprof's reading of every record:
// 100k short heap lines (1.8 MB) take 76 MiB at once read whole (the
// least of three peaks), 20 MiB in runs.
func TestRunsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1.8 MB of heap lines six times")
	}
	heap := lines("heap profile: 1: 1 [1: 1] @ heap/1048576\n", "1: 1 [1: 1] @ 0x1\n", 100_000)
	peak := func(size int) uint64 {
		defer func(n int) { chunkBytes = n }(chunkBytes)
		chunkBytes = size
		least := uint64(1 << 62)
		for range 3 {
			var err error
			least = min(least, memcheck.Peak(func() { _, err = Decode(heap, Options{}) }))
			if err != nil {
				t.Fatal(err)
			}
		}
		return least
	}
	whole, runs := peak(math.MaxInt), peak(256<<10)
	t.Logf("whole %.1f MiB, in runs %.1f MiB", float64(whole)/(1<<20), float64(runs)/(1<<20))
	if runs > whole/3 {
		t.Errorf("read in runs the text held %d bytes at once, read whole %d: want a third at most", runs, whole)
	}
}

// What a record's addresses add to the profile is not known before they
// are read: a text of 40k records of 50 addresses each, 2M distinct, is
// counted at its samples before it starts (35 MiB with the text), and
// refused in one line once its locations (about 70 MB in all) take what
// the limit leaves, between two runs.
func TestRunsRefusedAsTheyGrow(t *testing.T) {
	var text bytes.Buffer
	text.WriteString("heap profile: 1: 1 [1: 1] @ heap/1048576\n")
	a := 0x1000
	for range 40_000 {
		text.WriteString("1: 1 [1: 1] @")
		for range 50 {
			fmt.Fprintf(&text, " %#x", a)
			a += 16
		}
		text.WriteByte('\n')
	}
	defer model.SetMemoryAvailable(0)
	// What the tests before left is handed back first: handed back
	// during the run, it would hide what the profile takes.
	debug.FreeOSMemory()
	model.SetMemoryInUse(memlimit.InUse, 0)
	model.SetMemoryAvailable(40 << 20)
	_, err := Decode(text.Bytes(), Options{})
	if err == nil || !strings.Contains(err.Error(), "the rest of 40000 records") || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%d bytes, 2M distinct addresses, under a limit of 40 MiB: %v, want a one-line refusal between two runs", text.Len(), err)
	}
	model.SetMemoryAvailable(0)
	if _, err := Decode(text.Bytes(), Options{}); err != nil {
		t.Errorf("without a limit: %v", err)
	}
}
