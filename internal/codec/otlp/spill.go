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
// made. The ResourceProfiles, a small part of a large message (its
// samples reference the dictionary's stacks), are held whole between the
// two. The bytes are those of the whole-message writer.
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

// encodeJSONStreamed writes ps as EncodeJSON does, the dictionary as it
// is encoded.
func encodeJSONStreamed(w io.Writer, ps []*model.Profile, opts EncodeOptions) error {
	e, buf, release, err := startStreamed(ps, opts)
	if err != nil {
		return err
	}
	defer release()
	rest := e.resourceProfilesAll(nil)
	fill := func(_ int, emit func([]byte) error) error {
		var err error
		e.spill = func(b []byte) []byte {
			if err == nil {
				err = emit(b)
			}
			return b[:0]
		}
		b := e.dictionary(buf)
		if err == nil {
			err = emit(b)
		}
		e.out = b[:0]
		return err
	}
	if !opts.Gzip {
		return otlpcommon.WriteJSONStreamed(w, rest, jsonDescriptor, "otlp json", []protowire.Number{fDataDictionary}, fill)
	}
	zw := &levelGzip{w: w, buf: make([]byte, 0, smallOutput)}
	if err := otlpcommon.WriteJSONStreamed(zw, rest, jsonDescriptor, "otlp json", []protowire.Number{fDataDictionary}, fill); err != nil {
		return err
	}
	return zw.Close()
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
	e.out = buf
	rest := e.resourceProfilesAll(nil)
	head := appendVarint(appendTag(nil, fDataDictionary, protowire.BytesType), uint64(size))
	total := int64(len(head)) + int64(size) + int64(len(rest))

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
	put(e.dictionary(buf[:0]))
	put(rest)
	if zw != nil {
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
	}
	return err
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
// step lets go of its scratch before the next), the ResourceProfiles'
// bytes, the pieces' buffer and the text's buffers, and a quarter more.
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
		perSample   = 48 + 8 // sort key (samples sharing a stack), bytes
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
		n += perLabel * int64(len(p.LabelSets[i].Labels)+len(p.LabelSets[i].Attributes))
	}
	for i := range p.Samples {
		s := &p.Samples[i]
		n += perSample + perValue*int64(len(s.Values)) + perStamp*int64(len(s.Timestamps))
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
