package bundle

import (
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// locationsBundle is a bundle of one profile of n functions, each at its
// own location, and n one-frame samples.
func locationsBundle(t *testing.T, n int) []byte {
	t.Helper()
	b := synth.Locations(n)
	p := b.P
	for i := range n {
		p.Samples = append(p.Samples, model.NewSample(b.Stack([]int32{int32(i)}), []int64{1}))
	}
	data, err := bundleOf(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The shared tables are counted at what they take in memory before they
// are allocated: under a memory limit that leaves less, a profile of 20k
// functions and locations (about 5 MB in memory) is refused in one line;
// with no limit, or a limit that leaves enough, it is read.
func TestTablesCountedAgainstTheLimit(t *testing.T) {
	data := locationsBundle(t, 20000)
	defer model.SetMemoryAvailable(0)
	for _, c := range []struct {
		avail  int64
		refuse bool
	}{{0, false}, {64 << 20, false}, {2 << 20, true}} {
		model.SetMemoryAvailable(c.avail)
		r, err := open(data)
		if err != nil {
			t.Fatal(err)
		}
		q, err := r.Profile(0)
		if c.refuse {
			if err == nil || !strings.Contains(err.Error(), "the memory limit leaves") || strings.Contains(err.Error(), "\n") {
				t.Errorf("limit %d: %v, want a one-line refusal", c.avail, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("limit %d: %v", c.avail, err)
		}
		if len(q.Functions) != 20000 || len(q.Locations) != 20000 {
			t.Errorf("limit %d: %d functions, %d locations", c.avail, len(q.Functions), len(q.Locations))
		}
	}
}

// Under a memory limit, a profile whose stacks and tables the writer
// could not hold in what the limit leaves is refused before it is added.
func TestWriterHeldToTheLimit(t *testing.T) {
	b := synth.Locations(1000)
	p := b.P
	for i := range 1000 {
		p.Samples = append(p.Samples, model.NewSample(b.Stack([]int32{int32(i), int32((i + 1) % 1000)}), []int64{1}))
	}
	defer model.SetMemoryAvailable(0)
	model.SetMemoryInUse(func() int64 { return 0 }, 0)
	model.SetMemoryAvailable(64 << 10)
	if _, err := bundleOf(p); err == nil || !strings.Contains(err.Error(), "adding profile 0 (p0)") {
		t.Fatalf("under 64 KiB: %v, want a refusal", err)
	}
	model.SetMemoryAvailable(64 << 20)
	if _, err := bundleOf(p); err != nil {
		t.Fatalf("under 64 MiB: %v", err)
	}
}

// Tables read for summaries (Hollow) are counted without the profile's
// strings, functions, locations and lines, which a summary does not
// make: under a limit that leaves room for them alone, a summary is read
// and a whole profile is refused, from a fresh Reader or from the same
// one after the summary.
func TestHollowTablesCountLess(t *testing.T) {
	data := locationsBundle(t, 20000)
	defer model.SetMemoryAvailable(0)
	// The tables, their rows and the block count 5.1 MiB whole, 3.6
	// hollow.
	model.SetMemoryAvailable(4608 << 10)
	r, err := open(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Profile(0); err == nil || !strings.Contains(err.Error(), "the memory limit leaves") {
		t.Errorf("whole profile under 4.5 MiB: %v, want a refusal", err)
	}
	r, err = open(data)
	if err != nil {
		t.Fatal(err)
	}
	_, c, err := r.Hollow(0, false)
	if err != nil {
		t.Fatalf("summary under 4.5 MiB: %v", err)
	}
	if c.Locations != 20000 || c.Functions != 20000 {
		t.Errorf("summary counts %+v, want 20000 locations and functions", c)
	}
	if _, err := r.Profile(0); err == nil || !strings.Contains(err.Error(), "the memory limit leaves") {
		t.Errorf("whole profile after a summary under 4.5 MiB: %v, want a refusal", err)
	}
	model.SetMemoryAvailable(0)
	q, err := r.Profile(0)
	if err != nil {
		t.Fatalf("whole profile after a summary, no limit: %v", err)
	}
	if len(q.Functions) != 20000 || len(q.Locations) != 20000 {
		t.Errorf("%d functions, %d locations", len(q.Functions), len(q.Locations))
	}
}
