package hashindex

import (
	"hash/maphash"
	"math/rand/v2"
	"runtime"
	"testing"
)

// function is an entry of 24 bytes, as a profile's function of string
// indices and a start line.
type function struct {
	name, systemName, filename uint32
	startLine                  int64
}

// funcTable is a table of functions and its index; hash may be a poor
// one, to make entries collide.
type funcTable struct {
	fns  []function
	idx  Index
	hash func(function) uint64
}

// add adds f unless the table has it; it returns f's entry, and whether
// it was added.
func (t *funcTable) add(f function) (uint32, bool) {
	v, found := Intern(&t.idx, &t.fns, t.hash, f)
	return v, !found
}

// Every value added twice is found as the entry first added for it, with
// a good hash and with hashes that collide (a few values a hash, and all
// values one hash), across the index's growth.
func TestIndexFindsEveryEntry(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, h := range []struct {
		name string
		fn   func(function) uint64
	}{
		{"maphash", func(f function) uint64 { return maphash.Comparable(seed, f) }},
		{"name-mod-7", func(f function) uint64 { return uint64(f.name % 7) }},
		{"constant", func(function) uint64 { return 42 }},
	} {
		t.Run(h.name, func(t *testing.T) {
			n := 5000
			if h.name == "constant" {
				n = 500
			}
			rng := rand.New(rand.NewPCG(1, 2))
			tab := &funcTable{hash: h.fn}
			want := map[function]uint32{}
			for range 3 * n {
				f := function{name: uint32(rng.IntN(n)), filename: uint32(rng.IntN(2)), startLine: int64(rng.IntN(2))}
				v, added := tab.add(f)
				w, seen := want[f]
				if !seen {
					want[f] = v
					if !added {
						t.Fatalf("%+v: found as entry %d before it was added", f, v)
					}
					continue
				}
				if added || v != w {
					t.Fatalf("%+v: entry %d (added %v), want entry %d", f, v, added, w)
				}
			}
			if len(tab.fns) != len(want) || tab.idx.Len() != len(want) {
				t.Fatalf("%d entries, %d indexed, want %d", len(tab.fns), tab.idx.n, len(want))
			}
			if 2*tab.idx.n > len(tab.idx.slots) {
				t.Errorf("%d entries in %d slots: more than half full", tab.idx.n, len(tab.idx.slots))
			}
			for f, w := range want {
				if v, _, ok := tab.idx.Find(h.fn(f), func(v uint32) bool { return tab.fns[v] == f }); !ok || v != w {
					t.Fatalf("%+v: found %d, %v; want %d", f, v, ok, w)
				}
			}
		})
	}
}

// BenchmarkIndex adds 1M distinct functions to a table and looks each up
// again, found by the index or by a map[function]uint32. B/entry is what
// the index or map holds beside the table, after a collection.
//
//	go test -run '^$' -bench Index -benchtime 5x -count 6 ./internal/hashindex
func BenchmarkIndex(b *testing.B) {
	const n = 1 << 20
	fns := make([]function, n)
	for i := range fns {
		fns[i] = function{name: uint32(i + 1), filename: 7, startLine: int64(i % 1000)}
	}
	seed := maphash.MakeSeed()
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	b.Run("impl=map", func(b *testing.B) {
		var held int64
		for b.Loop() {
			before := heap()
			tab := make([]function, 0, n)
			m := map[function]uint32{}
			for _, f := range fns {
				if _, ok := m[f]; !ok {
					m[f] = uint32(len(tab))
					tab = append(tab, f)
				}
			}
			for _, f := range fns {
				if m[f] >= uint32(len(tab)) {
					b.Fatal("not found")
				}
			}
			held = heap() - before - int64(cap(tab))*24
			runtime.KeepAlive(m)
			runtime.KeepAlive(tab)
		}
		b.ReportMetric(float64(held)/n, "B/entry")
	})
	b.Run("impl=index", func(b *testing.B) {
		var held int64
		for b.Loop() {
			before := heap()
			tab := &funcTable{fns: make([]function, 0, n), hash: func(f function) uint64 { return maphash.Comparable(seed, f) }}
			for _, f := range fns {
				tab.add(f)
			}
			for _, f := range fns {
				if _, added := tab.add(f); added {
					b.Fatal("not found")
				}
			}
			held = heap() - before - int64(cap(tab.fns))*24
			runtime.KeepAlive(tab)
		}
		b.ReportMetric(float64(held)/n, "B/entry")
	})
}

// An index given its size is made once: the entries it was sized for fit
// without its growing, and are found.
func TestReserve(t *testing.T) {
	seed := maphash.MakeSeed()
	tab := &funcTable{hash: func(f function) uint64 { return maphash.Comparable(seed, f) }}
	tab.idx.Reserve(1000)
	slots := len(tab.idx.slots)
	if slots < 2000 {
		t.Fatalf("Reserve(1000): %d slots", slots)
	}
	for i := range 1000 {
		if _, added := tab.add(function{name: uint32(i)}); !added {
			t.Fatalf("function %d found before it was added", i)
		}
	}
	if len(tab.idx.slots) != slots {
		t.Errorf("%d slots after 1000 entries, %d reserved", len(tab.idx.slots), slots)
	}
	for i := range 1000 {
		if v, added := tab.add(function{name: uint32(i)}); added || v != uint32(i) {
			t.Fatalf("function %d: entry %d, added %v", i, v, added)
		}
	}
}
