package bundle

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
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
	p.AddLocation(model.Location{Address: 1, Mapping: model.NoMapping}, model.Line{Function: 0, Line: 1})
	st := b.Stack([]int32{0})
	for i := 0; i < n; i++ {
		p.Samples = append(p.Samples, model.NewSample(st, vals))
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
			h, c, herr := r.Hollow(i, false)
			sameHollow(t, p, err, h, c, herr)
			// ProfileLast may take the tables' arrays as they are: it
			// must give what Profile gives, and leave the tables whole
			// for the profiles read after it.
			q, qerr := r.ProfileLast(i)
			if (err == nil) != (qerr == nil) || err != nil && err.Error() != qerr.Error() {
				t.Fatalf("profile %d: Profile: %v; ProfileLast: %v", i, err, qerr)
			}
			if err != nil {
				continue
			}
			if d := diffProfiles(p, q); d != "" {
				t.Fatalf("profile %d: ProfileLast differs from Profile: %s", i, d)
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
		var p, h *model.Profile
		var c Counts
		var err, herr error
		decode := func() {
			p = nil
			tt, terr := decodeTables(&dec{b: tab, block: "tables", room: limit}, Version)
			if terr != nil {
				return
			}
			u := &unpacker{t: tt}
			p, err = u.decode(&dec{b: sec, block: "section", room: limit}, &Entry{Samples: samples, TimeNanos: timeNanos})
			hu := &unpacker{t: tt, hollow: true}
			h, herr = hu.decode(&dec{b: sec, block: "section", room: limit}, &Entry{Samples: samples, TimeNanos: timeNanos})
			c = Counts{Locations: int(hu.nloc), Functions: int(hu.nfunc)}
		}
		if alloc, over := memcheck.Over(2*allocBound(limit), decode); over {
			t.Fatalf("allocated %d bytes with a limit of %d (bound %d, two reads)", alloc, limit, 2*allocBound(limit))
		}
		if p == nil && err == nil {
			return // the tables failed
		}
		sameHollow(t, p, err, h, c, herr)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded profile does not validate: %v", err)
		}
	})
}

// sameHollow fails t unless a profile read hollow (h, its counts c, its
// error herr) is the profile read whole (p, err) without its stacks'
// frames, locations and functions: the same error, or the same samples
// on as many stacks, each empty, and the counts of the tables left out.
func sameHollow(t *testing.T, p *model.Profile, err error, h *model.Profile, c Counts, herr error) {
	t.Helper()
	if (err == nil) != (herr == nil) || err != nil && err.Error() != herr.Error() {
		t.Fatalf("read whole: %v; read hollow: %v", err, herr)
	}
	if err != nil {
		return
	}
	if err := h.Validate(); err != nil {
		t.Fatalf("hollow profile does not validate: %v", err)
	}
	if c.Locations != len(p.Locations) || c.Functions != len(p.Functions) || len(h.Locations) != 0 || len(h.Functions) != 0 {
		t.Fatalf("hollow: %+v counted, %d locations and %d functions made; whole: %d and %d",
			c, len(h.Locations), len(h.Functions), len(p.Locations), len(p.Functions))
	}
	if h.Stacks.Len() != p.Stacks.Len() || h.Stacks.NumFrames() != 0 || len(h.Samples) != len(p.Samples) || len(h.Mappings) != len(p.Mappings) {
		t.Fatalf("hollow: %d stacks of %d frames, %d samples, %d mappings; whole: %d stacks, %d samples, %d mappings",
			h.Stacks.Len(), h.Stacks.NumFrames(), len(h.Samples), len(h.Mappings), p.Stacks.Len(), len(p.Samples), len(p.Mappings))
	}
	for i := range p.Samples {
		a, b := &p.Samples[i], &h.Samples[i]
		if a.Stack != b.Stack || !slices.Equal(a.Values(), b.Values()) || !slices.Equal(a.Timestamps(), b.Timestamps()) ||
			a.Link != b.Link || a.LabelSet != b.LabelSet {
			t.Fatalf("sample %d: whole %+v, hollow %+v", i, *a, *b)
		}
	}
}
