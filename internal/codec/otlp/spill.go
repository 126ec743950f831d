package otlp

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"
	"github.com/pprofx/pprofx/internal/model"
)

// Writing a large message as it is encoded.
//
// A ProfilesData is written as its dictionary, then its ResourceProfiles.
// The dictionary's length goes before it, so the whole-message writer
// holds the whole message before writing it. From streamFrom bytes (as
// sizeHint guesses them) Encode and EncodeFramed encode the dictionary
// twice instead: once counting its bytes, in pieces that are dropped as
// they are made, and once writing it, in pieces written as they are
// made. The ResourceProfiles are encoded twice in the same way: once
// counting the bytes of each Profile (its samples, in pieces dropped as
// they are made) and of the messages around it, and once writing them,
// each length before its message. They are most of the message when a
// profile has many sample types and samples that cannot be left out of
// all but the first Profile (timestamped ones: a JFR recording's or a
// perf script's), and a small part when its stacks are. The bytes are
// those of the whole-message writer.
//
// The JSON of a message (EncodeJSON, EncodeJSONLines) has the dictionary
// after the ResourceProfiles, in the order the schema declares them, and
// no length: from the same size its dictionary is encoded once, each
// piece written as JSON as it is made (otlpcommon.WriteJSONStreamed).

// streamFrom is the message size, as sizeHint guesses it, from which the
// dictionary is written as it is encoded. Below it the message is held
// whole (encoding the dictionary once), as the output buffer of the
// pooled encoders is (maxPooledOut).
var streamFrom = maxPooledOut

// spillChunk is the size of the pieces the dictionary is written in
// (the tests cut them at every entry).
var spillChunk = 1 << 20

// next gives b, the output so far, to e.spill once it holds spillChunk
// bytes, and returns the buffer to go on with.
func (e *encoder) next(b []byte) []byte {
	if e.spill != nil && len(b) >= spillChunk {
		return e.spill(b)
	}
	return b
}

// encodeJSONStreamed writes ps as EncodeJSON does, the dictionary and
// each Profile as they are encoded.
func encodeJSONStreamed(w io.Writer, ps []*model.Profile, opts EncodeOptions) error {
	e, buf, release, err := startStreamed(ps, opts)
	if err != nil {
		return err
	}
	defer release()
	rest, profs := e.restWithEmptyProfiles(nil)
	// give emits what fill makes in buf, in pieces of e.next.
	give := func(emit func([]byte) error, fill func(b []byte) []byte) error {
		var err error
		e.spill = func(b []byte) []byte {
			if err == nil {
				err = emit(b)
			}
			return b[:0]
		}
		b := fill(buf[:0])
		if err == nil {
			err = emit(b)
		}
		buf = b[:0]
		e.out = buf
		return err
	}
	dict := otlpcommon.StreamedField{Path: []protowire.Number{fDataDictionary}, Fill: func(_ int, emit func([]byte) error) error {
		return give(emit, e.dictionary)
	}}
	prof := otlpcommon.StreamedField{Path: []protowire.Number{fDataResourceProfiles, 2, fScopeProfiles}, Fill: func(k int, emit func([]byte) error) error {
		r := profs[k]
		if !r.first {
			e.markOmittable(r.pi)
		}
		return give(emit, func(b []byte) []byte { return e.profileBody(b, r.pi, r.t, r.first) })
	}}
	if !opts.Gzip {
		return otlpcommon.WriteJSONStreamedAt(w, rest, jsonDescriptor, "otlp json", dict, prof)
	}
	zw := &levelGzip{w: w, buf: make([]byte, 0, smallOutput)}
	if err := otlpcommon.WriteJSONStreamedAt(zw, rest, jsonDescriptor, "otlp json", dict, prof); err != nil {
		return err
	}
	return zw.Close()
}

// profileRef is a Profile of the message: of sample type t (-1: none) of
// input profile pi, the first of its ScopeProfiles or not.
type profileRef struct {
	pi, t int
	first bool
}

// restWithEmptyProfiles appends the ResourceProfiles of e.ps, each of
// their Profiles empty, and returns which each is.
func (e *encoder) restWithEmptyProfiles(b []byte) ([]byte, []profileRef) {
	var refs []profileRef
	for i, j := range e.resourceRuns() {
		var rp, sp int
		b, rp = begin(b, fDataResourceProfiles)
		b = e.resourceHead(b, i)
		for k := i; k < j; k++ {
			b, sp = begin(b, 2)
			var ord []int
			b, ord = e.scopeHead(b, k)
			for x, t := range ord {
				b = append(appendTag(b, fScopeProfiles, protowire.BytesType), 0)
				refs = append(refs, profileRef{k, t, x == 0})
			}
			b = e.scopeTail(b, k)
			b = end(b, sp)
		}
		b = e.resourceTail(b, i)
		b = end(b, rp)
	}
	return b, refs
}

// startStreamed returns an encoder of ps with its dictionary laid out,
// the buffer its pieces are made in, and the function that gives the
// encoder back. A piece ends with an entry: the buffer has room for the
// largest stack's, which may hold millions of frames (grown by append,
// it would be copied into ever larger buffers, old and new held at once).
func startStreamed(ps []*model.Profile, opts EncodeOptions) (*encoder, []byte, func(), error) {
	e, release, err := newEncoder(ps, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	e.layout(ps)
	deepest := 0
	for _, r := range e.stacks {
		deepest = max(deepest, e.ps[r.p].Stacks.StackLen(int(r.i)))
	}
	room := spillChunk + spillChunk/4 + deepest*protowire.SizeVarint(uint64(e.locs.len()))
	return e, slices.Grow(e.out[:0], room), release, nil
}

// encodeStreamed writes ps as Encode (framed: EncodeFramed) does, the
// dictionary as it is encoded.
func encodeStreamed(w io.Writer, ps []*model.Profile, opts EncodeOptions, framed bool) error {
	e, buf, release, err := startStreamed(ps, opts)
	if err != nil {
		return err
	}
	defer release()

	// The dictionary's size, then the rest of the message.
	size := 0
	e.spill = func(b []byte) []byte {
		size += len(b)
		return b[:0]
	}
	b := e.dictionary(buf)
	size += len(b)
	buf = b[:0] // as large as the largest piece
	markLayout := e.markLayout
	plan, buf := e.planRest(buf)
	e.markLayout = markLayout
	e.out = buf
	head := appendVarint(appendTag(nil, fDataDictionary, protowire.BytesType), uint64(size))
	total := int64(len(head)) + int64(size) + plan.total

	out := w
	var zw io.WriteCloser
	if framed {
		if total > 1<<32-1 {
			return fmt.Errorf("otlp: message of %d bytes does not fit a 4-byte length", total)
		}
		head = binary.BigEndian.AppendUint32(nil, uint32(total))
		head = appendVarint(appendTag(head, fDataDictionary, protowire.BytesType), uint64(size))
		total += 4
	}
	if opts.Gzip {
		z := newGzip(w, total)
		out, zw = z, z
	}
	put := func(b []byte) {
		if err == nil {
			_, err = out.Write(b)
		}
	}
	put(head)
	e.spill = func(b []byte) []byte {
		put(b)
		return b[:0]
	}
	b = e.dictionary(buf[:0])
	put(b)
	if werr := e.writeRest(b[:0], plan, put); err == nil {
		err = werr
	}
	if zw != nil {
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// restPlan is what writing the ResourceProfiles as they are encoded
// needs to know first: the length of each message that goes before it.
type restPlan struct {
	res   []int // each ResourceProfiles'
	scope []int // each ScopeProfiles' (one per input profile)
	prof  []int // each Profile's, in the order they are written
	total int64 // the ResourceProfiles' bytes, tags and lengths included
}

// fieldSize is the size of a length-delimited field of n bytes numbered
// below 16.
func fieldSize(n int) int { return 1 + protowire.SizeVarint(uint64(n)) + n }

// planRest encodes the ResourceProfiles of e.ps counting their bytes,
// each Profile in pieces (e.next) dropped as they are made, and returns
// their lengths and the buffer, grown as the pieces needed.
func (e *encoder) planRest(buf []byte) (restPlan, []byte) {
	var pl restPlan
	counted := 0
	e.spill = func(b []byte) []byte {
		counted += len(b)
		return b[:0]
	}
	for i, j := range e.resourceRuns() {
		buf = e.resourceTail(e.resourceHead(buf[:0], i), i)
		rn := len(buf)
		for k := i; k < j; k++ {
			var ord []int
			buf, ord = e.scopeHead(buf[:0], k)
			sn := len(buf)
			sn += len(e.scopeTail(buf[:0], k))
			for x, t := range ord {
				counted = 0
				buf = e.profileBody(buf[:0], k, t, x == 0)
				n := counted + len(buf)
				pl.prof = append(pl.prof, n)
				sn += fieldSize(n)
			}
			pl.scope = append(pl.scope, sn)
			rn += fieldSize(sn)
		}
		pl.res = append(pl.res, rn)
		pl.total += int64(fieldSize(rn))
	}
	return pl, buf[:0]
}

// writeRest writes with put the ResourceProfiles planRest counted, each
// Profile in pieces written as they are made, in buf.
func (e *encoder) writeRest(buf []byte, pl restPlan, put func([]byte)) error {
	written := 0
	e.spill = func(b []byte) []byte {
		written += len(b)
		put(b)
		return b[:0]
	}
	ri, si, pi := 0, 0, 0
	b := buf[:0]
	for i, j := range e.resourceRuns() {
		b = appendVarint(appendTag(b, fDataResourceProfiles, protowire.BytesType), uint64(pl.res[ri]))
		ri++
		b = e.resourceHead(b, i)
		for k := i; k < j; k++ {
			b = appendVarint(appendTag(b, 2, protowire.BytesType), uint64(pl.scope[si]))
			si++
			var ord []int
			b, ord = e.scopeHead(b, k)
			for x, t := range ord {
				b = appendVarint(appendTag(b, fScopeProfiles, protowire.BytesType), uint64(pl.prof[pi]))
				put(b)
				written = 0
				b = e.profileBody(b[:0], k, t, x == 0)
				if written+len(b) != pl.prof[pi] {
					return fmt.Errorf("internal error: otlp: profile %d took %d bytes written, %d counted", pi, written+len(b), pl.prof[pi])
				}
				pi++
			}
			b = e.scopeTail(b, k)
		}
		b = e.resourceTail(b, i)
	}
	put(b)
	return nil
}

// WholeMemPerByte is what writing a message held whole may take per byte
// its profiles hold in memory (model.Profile.MemSize): its dictionary's
// layout and the message (TestWriteMemoryWithinCheck of internal/formats
// measures 1.0 to 1.5).
const WholeMemPerByte = 1.75

// EncodeMemory is what Encode, EncodeFramed, EncodeJSON or EncodeJSONLines
// (json) of p alone may take beyond p. A message held whole takes
// WholeMemPerByte times what p holds. One written as it is encoded (from
// streamFrom) holds no message: its count is the layout's, entry by entry
// as each step makes its arrays (every step's counted together, though a
// step lets go of its scratch before the next), the keys of samples that
// may be left out, the pieces' buffer and the text's buffers, and a
// quarter more.
func EncodeMemory(p *model.Profile, json bool) int64 {
	ps := []*model.Profile{p}
	if sizeHint(ps) < streamFrom {
		return int64(WholeMemPerByte * float64(p.MemSize()))
	}
	const (
		perString   = 24 + 16 + 4 // candidate, table entry, index
		perMapping  = 64
		perLocation = 24 + 8 + 4 + 4 // sort key, table entry, index, attribute offset
		perLocAttr  = 4
		perFunction = 8 + 4
		perStack    = 8 + 8 + 4 + 4 // sort entry, table entry, index, count
		perLabel    = 8 + 96        // attribute index, attribute body and its index
		perLabelSet = 24
		perSample   = 48 // sort key (samples sharing a stack)
		perValue    = 10
		perStamp    = 9
	)
	n := perString*int64(len(p.Strings)) + perMapping*int64(len(p.Mappings)) +
		perLocation*int64(len(p.Locations)) + perFunction*int64(len(p.Functions)) +
		perStack*int64(p.Stacks.Len()+1) + perLabelSet*int64(len(p.LabelSets))
	for _, as := range p.LocationAttributes {
		n += perLocAttr * int64(len(as))
	}
	for i := range p.LabelSets {
		n += perLabel * int64(len(p.LabelSets[i].Labels())+len(p.LabelSets[i].Attributes()))
	}
	for i := range p.Samples {
		s := &p.Samples[i]
		n += perSample + perValue*int64(len(s.Values())) + perStamp*int64(len(s.Timestamps()))
	}
	deepest := 0
	for i := range p.Stacks.Len() {
		deepest = max(deepest, p.Stacks.StackLen(i))
	}
	n += int64(spillChunk+spillChunk/4) + int64(deepest)*int64(protowire.SizeVarint(uint64(len(p.Locations))+1))
	// A gzip writer's state; with JSON, the text's buffer and the first
	// bytes held until they tell the gzip level (levelGzip).
	n += 2 << 20
	if json {
		n += flushAtJSON + smallOutput
	}
	// A quarter more: a step's arrays are made before the collector has
	// freed the last step's.
	return n + n/4
}

// flushAtJSON is the text otlpcommon's JSON writer holds before writing it.
const flushAtJSON = 1<<20 + 64<<10
