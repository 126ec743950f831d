package otlp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/codec/streamenc"
	"github.com/pprofx/pprofx/internal/model"
)

// EncodeStream writes, as Encode does (binary, one profile), the profile
// whose tables are in p (its Samples and Stacks empty) and whose samples,
// without labels, links or timestamps, come from samples; samples is
// called once per sample type and twice more. The bytes are those Encode
// writes for the same profile with its samples in p.
//
// Memory does not grow with the stacks' frames: they are sorted in runs
// that spill to temporary files in dir (os.TempDir() when ""), and the
// dictionary's stack table is written to another; both are removed before
// EncodeStream returns.
//
// How: the whole-model writer lays out p without samples; the stack table
// (the dictionary's last field) and each Profile's samples, which are all
// the samples change of that message (gperftools samples have no labels),
// are spliced into it (streamenc.Splice) at the places Encode puts them.
func EncodeStream(w io.Writer, p *model.Profile, samples streamenc.Samples, dir string, opts EncodeOptions) error {
	return encodeStream(w, p, samples, dir, opts, false)
}

// EncodeFramedStream is EncodeFramed as EncodeStream is Encode: the
// message after its 4-byte big-endian length.
func EncodeFramedStream(w io.Writer, p *model.Profile, samples streamenc.Samples, dir string, opts EncodeOptions) error {
	return encodeStream(w, p, samples, dir, opts, true)
}

func encodeStream(w io.Writer, p *model.Profile, samples streamenc.Samples, dir string, opts EncodeOptions, framed bool) error {
	if len(p.Samples) > 0 || p.Stacks.Len() > 0 {
		return fmt.Errorf("otlp: EncodeStream: the samples must come from samples alone")
	}
	if len(opts.ProfileID) != 0 && (len(opts.ProfileID) != 16 || allZero(opts.ProfileID)) {
		return fmt.Errorf("otlp: profile id must be 16 bytes, not all zero")
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("otlp: profile 0: %v", err)
	}
	e := &encoder{warned: map[string]bool{}, opts: opts}
	outer := e.profilesData([]*model.Profile{p})
	lmap := slices.Clone(e.lmap[0])
	if len(p.LabelSets) > 0 && len(e.lsAttrs[0].at(0)) > 0 {
		return fmt.Errorf("internal error: otlp: EncodeStream: label set 0 has attributes")
	}

	stacks, err := streamenc.NewSpool(dir, "pprofx-otlp-*.stacks")
	if err != nil {
		return fmt.Errorf("otlp: %v", err)
	}
	defer stacks.Close()
	ranks, err := layoutStreamedStacks(samples, lmap, dir, stacks)
	if err != nil {
		return fmt.Errorf("otlp: %v", err)
	}

	// The samples of each Profile, one per sample type in written order.
	// As the whole-model writer does (markOmittable), a Profile after the
	// first leaves out a sample whose value is 0 there and whose key is
	// its own: streamed samples have no attributes, link or timestamps, so
	// that is a stack no other sample has.
	ord := order(p)
	var alone []uint8
	for _, r := range ranks {
		if int(r) >= len(alone) {
			alone = append(alone, make([]uint8, int(r)+1-len(alone))...)
		}
		alone[r] = min(alone[r]+1, 2)
	}
	skip := func(k int, rank uint32, value int64) bool { return k > 0 && value == 0 && alone[rank] == 1 }
	nloc := len(p.Locations)
	gen := func(k int) func(w io.Writer) error {
		t := ord[k]
		return func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<20)
			var b []byte
			err := streamenc.Each(samples, nloc, func(i int, _ []int32, values []int64) error {
				if i >= len(ranks) || t >= len(values) {
					return fmt.Errorf("the samples changed between readings")
				}
				if skip(k, ranks[i], values[t]) {
					return nil
				}
				b = appendStreamedSample(b[:0], ranks[i], values[t])
				_, err := bw.Write(b)
				return err
			})
			if err != nil {
				return err
			}
			return bw.Flush()
		}
	}
	sizes := make([]int64, len(ord))
	{
		var b []byte
		err := streamenc.Each(samples, nloc, func(i int, _ []int32, values []int64) error {
			if i >= len(ranks) {
				return fmt.Errorf("the samples changed between readings")
			}
			for k, t := range ord {
				if t >= len(values) {
					return fmt.Errorf("sample %d has %d values, not %d", i, len(values), len(p.SampleTypes))
				}
				if !skip(k, ranks[i], values[t]) {
					sizes[k] += int64(len(appendStreamedSample(b[:0], ranks[i], values[t])))
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("otlp: %v", err)
		}
	}

	dictPath := []protowire.Number{fDataDictionary}
	profPath := []protowire.Number{fDataResourceProfiles, 2, fScopeProfiles}
	k := 0
	var bad error
	segs, err := streamenc.Splice(outer, func(path []protowire.Number) bool {
		return len(path) < len(profPath) && slices.Equal(path, profPath[:len(path)])
	}, func(path []protowire.Number, body []byte) ([]streamenc.Seg, bool) {
		switch {
		case slices.Equal(path, dictPath):
			x, _, err := streamenc.FirstAbove(body, fDictAttribute)
			if err != nil || !bytes.Equal(body[x:], []byte{fDictStack<<3 | 2, 0}) {
				bad = fmt.Errorf("internal error: otlp: EncodeStream: the dictionary does not end with an empty stack table")
			}
			return []streamenc.Seg{{Lit: body}, {N: stacks.Len(), Write: stacks.CopyTo}}, true
		case slices.Equal(path, profPath):
			if k >= len(ord) {
				return nil, false // a Profile of no sample type: no samples
			}
			x, err := streamenc.SplitAfter(body, fProfileSampleType)
			if _, has, _ := streamenc.FirstAbove(body[x:], fProfileSamples); err != nil || x == 0 || has {
				bad = fmt.Errorf("internal error: otlp: EncodeStream: unexpected Profile layout")
			}
			s := []streamenc.Seg{{Lit: body[:x]}, {N: sizes[k], Write: gen(k)}, {Lit: body[x:]}}
			k++
			return s, true
		}
		return nil, false
	})
	if err == nil {
		err = bad
	}
	if err == nil && k != len(ord) {
		err = fmt.Errorf("internal error: otlp: EncodeStream found %d Profiles, not %d", k, len(ord))
	}
	if err != nil {
		return err
	}
	if framed {
		n := streamenc.Len(segs)
		if n > 1<<32-1 {
			return fmt.Errorf("otlp: message of %d bytes does not fit a 4-byte length", n)
		}
		segs = append([]streamenc.Seg{{Lit: binary.BigEndian.AppendUint32(nil, uint32(n))}}, segs...)
	}
	if !opts.Gzip {
		return streamenc.WriteSegs(w, segs)
	}
	zw := newGzip(w, streamenc.Len(segs))
	if err := streamenc.WriteSegs(zw, segs); err != nil {
		return err
	}
	return zw.Close()
}

// appendStreamedSample appends a Sample as the profile writer does for a
// sample with this stack index and value and no attributes, link or
// timestamps: the value first, then the stack (no attribute indices:
// appendPacked writes nothing for none).
func appendStreamedSample(b []byte, stack uint32, value int64) []byte {
	b, sb := begin(b, fProfileSamples)
	b = append(b, fSampleValues<<3)
	b = appendVarint(b, uint64(value))
	b = appendVarintField(b, fSampleStack, uint64(stack))
	return end(b, sb)
}

// layoutStreamedStacks is layoutStacks for streamed samples: it writes the
// stack table (after its zero entry) to out and returns each sample's
// stack index. The stacks come sorted; equal ones share an entry, and the
// empty stack is the zero entry.
func layoutStreamedStacks(samples streamenc.Samples, lmap []int32, dir string, out *streamenc.Spool) ([]uint32, error) {
	var ranks []uint32
	var prev []int32
	var n uint32
	var b []byte
	err := streamenc.SortStacks(samples, lmap, false, dir, func(n int) { ranks = make([]uint32, n) }, func(i int32, key []int32) error {
		if len(key) == 0 {
			return nil
		}
		if n > 0 && slices.Equal(prev, key) {
			ranks[i] = n
			return nil
		}
		n++
		ranks[i] = n
		prev = append(prev[:0], key...)
		b = b[:0]
		var sb, lb int
		b, sb = begin(b, fDictStack)
		b, lb = begin(b, 1)
		for k := len(key) - 1; k >= 0; k-- {
			b = appendVarint(b, uint64(key[k]))
		}
		b = end(b, lb)
		b = end(b, sb)
		_, err := out.Write(b)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ranks, out.Finish()
}
