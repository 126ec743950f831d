package bundle

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// fuzzLimit is the expansion limit the fuzz targets read n bytes with.
func fuzzLimit(n int) int64 { return 1<<20 + 64*int64(n) }

// allocBound is what reading one profile may allocate under an expansion
// limit: the blocks and what they decode to are counted against it, the
// tables and the profile built from them take a bounded multiple.
func allocBound(limit int64) uint64 { return 32 * uint64(limit) }

// wideRows is a profile of n samples that share one stack and one row of
// types values.
func wideRows(types, n int) *model.Profile {
	b := model.NewBuilder()
	p := b.P
	vals := make([]int64, types)
	for i := range vals {
		p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: b.String(fmt.Sprint("t", i)), Unit: b.String("count")})
		vals[i] = int64(i)
	}
	p.Functions = []model.Function{{Name: b.String("f")}}
	p.Locations = []model.Location{{Address: 1, Mapping: model.NoMapping, Lines: []model.Line{{Function: 0, Line: 1}}}}
	st := b.Stack([]int32{0})
	for i := 0; i < n; i++ {
		p.Samples = append(p.Samples, model.Sample{Stack: st, Values: vals, Link: model.NoLink})
	}
	return p
}

// FuzzReader feeds arbitrary bytes to Open and Profile: they must return
// an error or a valid profile, never panic, and a profile read must go into
// a new bundle unchanged.
func FuzzReader(f *testing.F) {
	for _, ps := range [][]*model.Profile{{handBuilt(0), handBuilt(1)}, {}, {model.New()}} {
		data, err := bundleOf(ps...)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	if files, _ := filepath.Glob("../../../testdata/go/*.pb.gz"); len(files) > 0 {
		var ps []*model.Profile
		for _, name := range files {
			ps = append(ps, decodeFile(f, name))
		}
		if data, err := bundleOf(ps...); err == nil {
			f.Add(data)
		}
	}
	// A bundle whose one profile repeats one row of 1000 values: what
	// once ran a fuzzer out of memory (each sample copied its row).
	if data, err := bundleOf(wideRows(1000, 4096)); err == nil {
		f.Add(data)
	}
	runtime.GC() // count nothing the seeds' setup allocated
	f.Fuzz(func(t *testing.T, data []byte) {
		// What one profile may expand to, and so allocate, follows the
		// file's size: the limit --max-input-size sets in pprofx.
		limit := fuzzLimit(len(data))
		r, err := OpenLimit(bytes.NewReader(data), int64(len(data)), limit)
		if err != nil {
			return
		}
		for i := 0; i < r.Len() && i < 16; i++ {
			_ = r.Entry(i)
			var p *model.Profile
			var err error
			if alloc, over := memcheck.Over(allocBound(limit), func() { p, err = r.Profile(i) }); over {
				t.Fatalf("profile %d: allocated %d bytes with a limit of %d (bound %d)", i, alloc, limit, allocBound(limit))
			}
			if err != nil {
				continue
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("profile %d does not validate: %v", i, err)
			}
			again, err := bundleOf(p)
			if err != nil {
				t.Fatalf("profile %d read but cannot be written: %v", i, err)
			}
			back, err := readAll(again)
			if err != nil {
				t.Fatalf("profile %d rewritten cannot be read: %v", i, err)
			}
			if d := diffProfiles(p, back[0]); d != "" {
				t.Fatalf("profile %d changed when rewritten: %s", i, d)
			}
		}
	})
}

// FuzzBlocks fuzzes the decoders of the shared tables and of a section
// behind the compression and checksums that keep FuzzReader's mutations
// from reaching them.
func FuzzBlocks(f *testing.F) {
	data, err := bundleOf(handBuilt(0), handBuilt(1))
	if err != nil {
		f.Fatal(err)
	}
	r, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		f.Fatal(err)
	}
	tab, err := r.block("tables", r.tablesOff, r.tablesLen, r.tablesRaw, DefaultLimit)
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i < r.Len(); i++ {
		e := r.entries[i]
		sec, err := r.block("section", e.off, e.size, e.rawSize, DefaultLimit)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tab, sec, e.Samples, e.TimeNanos)
	}
	runtime.GC()
	f.Fuzz(func(t *testing.T, tab, sec []byte, samples int, timeNanos int64) {
		limit := fuzzLimit(len(tab) + len(sec))
		var p *model.Profile
		decode := func() {
			p = nil
			tt, err := decodeTables(&dec{b: tab, block: "tables", room: limit}, Version)
			if err != nil {
				return
			}
			u := &unpacker{t: tt}
			if q, err := u.decode(&dec{b: sec, block: "section", room: limit}, &Entry{Samples: samples, TimeNanos: timeNanos}); err == nil {
				p = q
			}
		}
		if alloc, over := memcheck.Over(allocBound(limit), decode); over {
			t.Fatalf("allocated %d bytes with a limit of %d (bound %d)", alloc, limit, allocBound(limit))
		}
		if p == nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded profile does not validate: %v", err)
		}
	})
}
