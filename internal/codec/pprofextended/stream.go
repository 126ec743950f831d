package pprofextended

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/codec/streamenc"
	"github.com/pprofx/pprofx/internal/model"
)

// EncodeStream writes, as Encode does (binary, one profile), the profile
// whose tables are in p (its Samples and Stacks empty) and whose samples,
// without labels, links or timestamps, come from samples; samples is
// called three times. The bytes are those Encode writes for the same
// profile with its samples in p.
//
// Memory does not grow with the stacks' frames: they are sorted in runs
// that spill to temporary files in dir (os.TempDir() when ""), and
// location_indices is written to another; both are removed before
// EncodeStream returns. The Profile message is read twice, once to derive
// the profile id (which comes before it) and once to write it.
//
// How: the whole-model writer lays out p without samples; the samples and
// location_indices, which are all the samples change of that message
// (gperftools samples have no labels, so the attribute table stays empty),
// are spliced into it (streamenc.Splice) at the places Encode puts them.
func EncodeStream(w io.Writer, p *model.Profile, samples streamenc.Samples, dir string, opts EncodeOptions) error {
	if opts.JSON {
		return fmt.Errorf("otlp: EncodeStream writes binary protobuf only")
	}
	if len(p.Samples) > 0 || p.Stacks.Len() > 0 {
		return fmt.Errorf("otlp: EncodeStream: the samples must come from samples alone")
	}
	if len(opts.ProfileID) != 0 && len(opts.ProfileID) != 16 {
		return fmt.Errorf("otlp: profile id is %d bytes, want 16", len(opts.ProfileID))
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("otlp: profile 0: %v", err)
	}
	e := newEncoder(opts)
	derive := len(opts.ProfileID) == 0 && len(p.ProfileID) == 0
	if derive {
		// A stand-in until the id is derived; the Profile message does
		// not hold it.
		e.opts.ProfileID = slices.Repeat([]byte{0xff}, 16)
	}
	ps := []*model.Profile{p}
	body, x, y, lmap, err := e.tableOnlyProfile(ps)
	if err != nil {
		return err
	}

	// location_indices and each sample's start in it.
	li, err := streamenc.NewSpool(dir, "pprofx-otlp-*.li")
	if err != nil {
		return fmt.Errorf("otlp: %v", err)
	}
	defer li.Close()
	starts, err := layoutStreamedStacks(samples, lmap, dir, li)
	if err != nil {
		return fmt.Errorf("otlp: %v", err)
	}
	nloc := len(p.Locations)
	gen := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		var b []byte
		err := streamenc.Each(samples, nloc, func(i int, stack []int32, values []int64) error {
			if i >= len(starts) {
				return fmt.Errorf("the samples changed between readings")
			}
			b = appendStreamedSample(b[:0], values, starts[i], len(stack))
			_, err := bw.Write(b)
			return err
		})
		if err != nil {
			return err
		}
		return bw.Flush()
	}
	var liHead []byte
	if li.Len() > 0 {
		liHead = protowire.AppendVarint(appendTag(nil, fProfileLocationIndices, protowire.BytesType), uint64(li.Len()))
	}
	segs := func(nsamp int64) []streamenc.Seg {
		return []streamenc.Seg{{Lit: body[:x]}, {N: nsamp, Write: gen}, {Lit: body[x:y]},
			{Lit: liHead}, {N: li.Len(), Write: li.CopyTo}, {Lit: body[y:]}}
	}

	// The samples' size; with it, when derived, the profile id.
	var nsamp int64
	if derive {
		h := sha256.New()
		h.Write(body[:x])
		if nsamp, err = streamenc.Count(func(w io.Writer) error { return gen(io.MultiWriter(h, w)) }); err != nil {
			return fmt.Errorf("otlp: %v", err)
		}
		h.Write(body[x:y])
		h.Write(liHead)
		if err := li.CopyTo(h); err != nil {
			return fmt.Errorf("otlp: %v", err)
		}
		h.Write(body[y:])
		var sum [32]byte
		id := idOfSum(h.Sum(sum[:0]))
		e.opts.ProfileID = id[:]
	} else if nsamp, err = streamenc.Count(gen); err != nil {
		return fmt.Errorf("otlp: %v", err)
	}
	outer := e.profilesData(ps, sizeHint(ps))
	all, err := streamenc.Splice(outer, descendTo(profilePath), func(path []protowire.Number, _ []byte) ([]streamenc.Seg, bool) {
		if slices.Equal(path, profilePath) {
			return segs(nsamp), true
		}
		return nil, false
	})
	if err != nil {
		return err
	}
	if !opts.Gzip {
		return streamenc.WriteSegs(w, all)
	}
	zw := gzip.NewWriter(w)
	if err := streamenc.WriteSegs(zw, all); err != nil {
		return err
	}
	return zw.Close()
}

// profilePath is where the Profile message is in a ProfilesData.
var profilePath = []protowire.Number{fProfilesDataResourceProfiles, fResourceProfilesScope, fScopeProfilesProfiles, fContainerProfile}

// tableOnlyProfile writes ps, whose one profile has its tables but no
// samples, and returns the Profile message's body in it, where the samples
// go (x: after the sample types) and where location_indices goes (y), and
// the written index of each model location.
func (e *encoder) tableOnlyProfile(ps []*model.Profile) (body []byte, x, y int, lmap []int32, err error) {
	outer := e.profilesData(ps, sizeHint(ps))
	lmap = slices.Clone(e.lmap)
	if _, err := streamenc.Splice(outer, descendTo(profilePath), func(path []protowire.Number, b []byte) ([]streamenc.Seg, bool) {
		if slices.Equal(path, profilePath) {
			body = b
		}
		return nil, false
	}); err != nil {
		return nil, 0, 0, nil, err
	}
	if body == nil {
		return nil, 0, 0, nil, fmt.Errorf("internal error: otlp: EncodeStream found no Profile message")
	}
	if x, err = streamenc.SplitAfter(body, fProfileSampleType); err != nil {
		return nil, 0, 0, nil, err
	}
	var seen bool
	if y, seen, err = streamenc.FirstAbove(body, fProfileLocationIndices); err != nil {
		return nil, 0, 0, nil, err
	}
	if _, has, _ := streamenc.FirstAbove(body[x:], fProfileSample); has || seen {
		return nil, 0, 0, nil, fmt.Errorf("internal error: otlp: EncodeStream: samples in the table-only Profile")
	}
	return body, x, y, lmap, nil
}

// descendTo accepts the paths that lead to path.
func descendTo(path []protowire.Number) func([]protowire.Number) bool {
	return func(p []protowire.Number) bool {
		return len(p) < len(path) && slices.Equal(p, path[:len(p)])
	}
}

// idOfSum is deriveID from the SHA-256 of the Profile message body.
func idOfSum(sum []byte) [16]byte {
	var id [16]byte
	copy(id[:12], sum[:12])
	copy(id[12:], derivedIDMark(id[:12]))
	return id
}

// appendStreamedSample appends a Sample as the profile writer does for a
// sample with these values, stack start and length and no label set, link
// or timestamps.
func appendStreamedSample(b []byte, values []int64, start uint32, n int) []byte {
	b, sb := begin(b, fProfileSample)
	if len(values) > 0 {
		var vs int
		b, vs = begin(b, 2)
		for _, v := range values {
			b = appendVarint(b, uint64(v))
		}
		b = end(b, vs)
	}
	b = appendVarintField(b, 7, uint64(start))
	b = appendVarintField(b, 8, uint64(n))
	return end(b, sb)
}

// layoutStreamedStacks is layoutStacks for streamed samples: it writes
// location_indices (the packed varints) to li and returns each sample's
// start in it. The stacks come sorted in descending order, the order in
// which layoutStacks goes through them: a stack reuses the tail of the one
// before it when it is that one's caller part, and is written out
// otherwise.
func layoutStreamedStacks(samples streamenc.Samples, lmap []int32, dir string, li *streamenc.Spool) ([]uint32, error) {
	var starts []uint32
	var prev []int32
	var prevStart, n uint32
	var b []byte
	err := streamenc.SortStacks(samples, lmap, true, dir, func(n int) { starts = make([]uint32, n) }, func(i int32, key []int32) error {
		if len(key) == 0 {
			starts[i] = 0
			return nil
		}
		if prev != nil && len(prev) >= len(key) && slices.Equal(prev[:len(key)], key) {
			starts[i] = prevStart + uint32(len(prev)-len(key))
		} else {
			if uint64(n)+uint64(len(key)) > 1<<31-1 {
				return fmt.Errorf("location_indices would exceed 2^31 entries")
			}
			starts[i] = n
			n += uint32(len(key))
			b = b[:0]
			for k := len(key) - 1; k >= 0; k-- {
				b = appendVarint(b, uint64(key[k]))
			}
			if _, err := li.Write(b); err != nil {
				return err
			}
		}
		prev, prevStart = append(prev[:0], key...), starts[i]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return starts, li.Finish()
}
