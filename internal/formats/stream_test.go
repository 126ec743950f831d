package formats

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/codec/streamenc"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/model"
)

// gperfShape is a 64-bit little-endian gperftools profile of n records over
// `distinct` stacks (0: every record its own) with depth PCs each (or, with
// depth < 0, 1 to -depth at random) drawn from pool addresses of one mapping
// (neighbours when pool < 16).
func gperfShape(n, distinct, depth, pool int, seed uint64) []byte {
	var b []byte
	slot := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	for _, v := range []uint64{0, 3, 0, 10000, 0} {
		slot(v)
	}
	for r := 0; r < n; r++ {
		x := seed + uint64(r)
		if distinct > 0 {
			x = seed + uint64(r*7919%distinct)
		}
		next := func() uint64 {
			x = x*6364136223846793005 + 1442695040888963407
			return x >> 33
		}
		d := depth
		if d < 0 {
			d = 1 + int(next()%uint64(-depth))
		}
		slot(1 + next()%3)
		slot(uint64(d))
		for j := 0; j < d; j++ {
			if pool < 16 {
				// Neighbouring addresses: a caller's (its return
				// address less one, as the decoder takes it) is often
				// another stack's leaf.
				slot(0x400001 + next()%uint64(pool))
			} else {
				slot(0x400000 + 16*(next()%uint64(pool)) + 5)
			}
		}
	}
	slot(0)
	slot(1)
	slot(0)
	return append(b, "00400000-00500000 r-xp 00000000 08:01 1234       /usr/bin/x\n"...)
}

// TestOTLPStreamSameAsWhole checks that a gperftools profile written to
// binary OTLP (both dialects, raw and gzipped, with a derived or a given
// profile id) from the stream (Read with Stream set) gives the bytes of
// decoding it whole and writing that, on every real fixture and on
// generated shapes: all stacks distinct, few stacks repeated, depth 8 and
// 128, and short stacks over five addresses (many of them the caller part
// of others, which location_indices shares). The stacks are sorted in one
// run and in many spilled ones; no temporary file is left behind.
func TestOTLPStreamSameAsWhole(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	inputs := map[string][]byte{
		"distinct32":  gperfShape(3000, 0, 32, 67584, 1),
		"repeat32":    gperfShape(6000, 200, 32, 67584, 2),
		"distinct8":   gperfShape(3000, 0, 8, 67584, 3),
		"distinct128": gperfShape(300, 0, 128, 67584, 4),
		"prefixes":    gperfShape(3000, 0, -6, 5, 5),
	}
	files, _ := filepath.Glob("../../testdata/gperftools/*.prof")
	if len(files) < 8 {
		t.Fatalf("%d fixtures", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = data
	}
	// A cut record, salvaged.
	inputs["cut-salvaged"] = inputs["le64-1000hz-4t.prof"][:len(inputs["le64-1000hz-4t.prof"])/2]
	id := bytes.Repeat([]byte{7}, 16)
	oldBudget := streamenc.RunBudget
	defer func() { streamenc.RunBudget = oldBudget }()
	for name, data := range inputs {
		ro := ReadOptions{Salvage: name == "cut-salvaged"}
		whole, err := Read(bytes.NewReader(data), ro)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range []OutFormat{OutOTLP, OutOTLPFramed, OutPprofExtended} {
			for _, opts := range []WriteOptions{{}, {Gzip: true}, {ProfileID: id}} {
				opts.ScopeVersion = "test"
				var want bytes.Buffer
				if err := Write(&want, f, whole.Items, opts); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for _, budget := range []int{oldBudget, 100} {
					streamenc.RunBudget = budget
					ro.Stream = true
					in, err := Read(bytes.NewReader(data), ro)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if in.Items[0].Stream == nil {
						t.Fatalf("%s: not streamed", name)
					}
					var got bytes.Buffer
					err = Write(&got, f, in.Items, opts)
					in.Close()
					what := fmt.Sprintf("%s to %s %+v, runs of %d frames", name, f, opts, budget)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if !bytes.Equal(got.Bytes(), want.Bytes()) {
						t.Fatalf("%s: %d bytes differ from the whole model's %d", what, got.Len(), want.Len())
					}
				}
			}
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in TMPDIR: %v", ents)
	}
}

// TestOTLPEncodeStreamEdgeStacks checks both OTLP stream writers against
// their whole-model writers on stacks a gperftools input never gives but a
// stream may: an empty stack, samples sharing a stack, distinct stack
// entries with equal frames, a stack that is the caller part of
// another, and zero values (which a Profile after the first leaves out of
// samples whose stack is their own).
func TestOTLPEncodeStreamEdgeStacks(t *testing.T) {
	data, err := os.ReadFile("../../testdata/gperftools/le64-1000hz-4t.prof")
	if err != nil {
		t.Fatal(err)
	}
	in, err := Read(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Items[0].Profile
	n := len(p.Samples)
	if n < 10 {
		t.Fatalf("%d samples", n)
	}
	add := func(stack []int32, v int64) {
		s := p.Stacks.Add(stack)
		p.Samples = append(p.Samples, model.NewSample(s, []int64{v, v * 1000}))
	}
	add(nil, 3)
	// Zeros in the second sample type on stacks of their own: left out of
	// that Profile (and of the stream's), read back as 0.
	for i := 1; i < n; i += 4 {
		p.Samples[i].Values()[1] = 0
	}
	for i := 0; i < n; i += 3 {
		s := p.Samples[i]
		p.Samples = append(p.Samples, model.NewSample(s.Stack, []int64{1, 1000}))
		// A 0 in the second sample type: left out of that Profile only
		// where the sample's stack is its own (here, two samples share it).
		p.Samples = append(p.Samples, model.NewSample(s.Stack, []int64{1, 0}))
		st := slices.Clone(p.Stacks.Append(nil, int(s.Stack)))
		add(st, 2)
		if len(st) > 1 {
			add(st[1:], 5)
			add(st[len(st)-1:], 7)
		}
	}
	tables := *p
	tables.Samples, tables.Stacks = nil, model.Stacks{}
	samples := func(fn func([]int32, []byte, []int64) error) error {
		for i := range p.Samples {
			if err := fn(p.Stacks.Append(nil, int(p.Samples[i].Stack)), nil, p.Samples[i].Values()); err != nil {
				return err
			}
		}
		return nil
	}
	oldBudget := streamenc.RunBudget
	defer func() { streamenc.RunBudget = oldBudget }()
	for _, budget := range []int{oldBudget, 50} {
		streamenc.RunBudget = budget
		for _, gz := range []bool{false, true} {
			var want, got bytes.Buffer
			if err := pprofextended.Encode(&want, []*model.Profile{p}, pprofextended.EncodeOptions{Gzip: gz}); err != nil {
				t.Fatal(err)
			}
			if err := pprofextended.EncodeStream(&got, &tables, samples, t.TempDir(), pprofextended.EncodeOptions{Gzip: gz}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("pprofextended, gzip %v, runs of %d: %d bytes differ from Encode's %d", gz, budget, got.Len(), want.Len())
			}
			want.Reset()
			got.Reset()
			if err := otlp.Encode(&want, []*model.Profile{p}, otlp.EncodeOptions{Gzip: gz}); err != nil {
				t.Fatal(err)
			}
			if err := otlp.EncodeStream(&got, &tables, samples, t.TempDir(), otlp.EncodeOptions{Gzip: gz}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("v1development, gzip %v, runs of %d: %d bytes differ from Encode's %d", gz, budget, got.Len(), want.Len())
			}
		}
	}
}

// FuzzOTLPStream checks, on any input read as a gperftools profile, that
// binary OTLP written from the stream (both dialects, stacks sorted in
// runs of 16 frames) has the bytes written from the whole model, or that
// both reads fail alike.
func FuzzOTLPStream(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/gperftools/*.prof")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add(gperfShape(40, 0, -6, 5, 1))
	f.Add(gperfShape(30, 7, 4, 100, 2))
	old := streamenc.RunBudget
	f.Cleanup(func() { streamenc.RunBudget = old })
	streamenc.RunBudget = 16
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, salvage := range []bool{false, true} {
			ro := ReadOptions{Salvage: salvage, Warn: func(string) {}}
			whole, werr := Read(bytes.NewReader(data), ro)
			if werr == nil && (whole.Format != detect.Gperftools || len(whole.Items) != 1) {
				return // another format: not streamed
			}
			ro.Stream = true
			in, serr := Read(bytes.NewReader(data), ro)
			if (werr == nil) != (serr == nil) || (werr != nil && werr.Error() != serr.Error()) {
				t.Fatalf("salvage %v: whole model: %v; stream: %v", salvage, werr, serr)
			}
			if werr != nil {
				continue
			}
			for _, fo := range []OutFormat{OutOTLP, OutPprofExtended} {
				var want, got bytes.Buffer
				werr := Write(&want, fo, whole.Items, WriteOptions{})
				serr := Write(&got, fo, in.Items, WriteOptions{})
				if (werr == nil) != (serr == nil) {
					t.Fatalf("%s: whole model: %v; stream: %v", fo, werr, serr)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("%s, salvage %v: %d bytes differ from the whole model's %d", fo, salvage, got.Len(), want.Len())
				}
			}
			in.Close()
		}
	})
}
