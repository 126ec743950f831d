package bundle

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

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
	if files, _ := filepath.Glob("../../testdata/go/*.pb.gz"); len(files) > 0 {
		var ps []*model.Profile
		for _, name := range files {
			ps = append(ps, decodeFile(f, name))
		}
		if data, err := bundleOf(ps...); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for i := 0; i < r.Len() && i < 16; i++ {
			_ = r.Entry(i)
			p, err := r.Profile(i)
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
	f.Fuzz(func(t *testing.T, tab, sec []byte, samples int, timeNanos int64) {
		tt, err := decodeTables(&dec{b: tab, block: "tables"})
		if err != nil {
			return
		}
		u := &unpacker{t: tt}
		p, err := u.decode(&dec{b: sec, block: "section"}, &Entry{Samples: samples, TimeNanos: timeNanos})
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded profile does not validate: %v", err)
		}
	})
}
