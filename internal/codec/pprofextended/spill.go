// Large profiles are written without holding their Profile message.

package pprofextended

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"
	"github.com/pprofx/pprofx/internal/codec/streamenc"
	"github.com/pprofx/pprofx/internal/model"
)

// spillFrom is the guessed size (sizeHint) from which binary output is
// written as it is made rather than gathered whole: a Profile message is
// then made twice, once to count its bytes (and derive its id) and once
// to write them, a piece of spillSize bytes at a time. Below it, one
// buffer of the output's size costs less than making it twice.
var spillFrom = 16 << 20

// spillSize is how many bytes of a spilled body are gathered before they
// are written.
var spillSize = 64 << 10

// spilledBody is what the containers need of a Profile message that is
// spliced in later: its size, and the id derived from it.
type spilledBody struct {
	n  int64
	id [16]byte
}

// spill writes b out when the body is spilled and b holds spillSize
// bytes or more, and returns what is left to append to.
func (e *encoder) spill(b []byte) []byte {
	if e.sink == nil || len(b) < spillSize {
		return b
	}
	if e.sinkErr == nil {
		_, e.sinkErr = e.sink.Write(b)
	}
	return b[:0]
}

// writeBody writes the Profile message body of p, laid out, to w, its
// fields in the order of their numbers or, with declared, as the schema
// declares them (appendBody).
func (e *encoder) writeBody(w io.Writer, p *model.Profile, declared bool) error {
	e.sink, e.sinkErr = w, nil
	defer func() { e.sink, e.sinkErr = nil, nil }()
	b := e.appendBody(e.out[:0], p, declared)
	e.out = b[:0]
	if e.sinkErr == nil && len(b) > 0 {
		_, e.sinkErr = w.Write(b)
	}
	return e.sinkErr
}

// encodeSpilled writes ps as Encode does, the same bytes, but holds no
// more of the output than a piece of each Profile message and the
// messages around them. Each profile is laid out, and its body made to
// count its size and hash it; the messages around the bodies are then
// made with the sizes and ids, and each body is made again as it is
// written (laid out again first, unless it is the last one laid out).
// JSON, which has no sizes, makes a body first only to derive its id.
func (e *encoder) encodeSpilled(w io.Writer, ps []*model.Profile) error {
	e.bodies = make([]spilledBody, len(ps))
	defer func() { e.bodies = nil }()
	for i, p := range ps {
		var h hash.Hash
		if len(e.opts.ProfileID) == 0 && len(p.ProfileID) == 0 {
			h = sha256.New()
		} else if e.opts.JSON {
			continue
		}
		e.layout(p)
		n, err := streamenc.Count(func(w io.Writer) error {
			if h != nil {
				w = io.MultiWriter(w, h)
			}
			return e.writeBody(w, p, false)
		})
		if err != nil {
			return err
		}
		e.bodies[i].n = n
		if h != nil {
			var sum [sha256.Size]byte
			e.bodies[i].id = idOfSum(h.Sum(sum[:0]))
		}
	}
	// The messages around the bodies are made apart from the pieces of
	// the bodies, which e.out holds as they are written.
	outer := slices.Clone(e.profilesData(ps, 0))
	if e.opts.JSON {
		return e.writeSpilledJSON(w, outer, ps)
	}
	k := 0
	segs, err := streamenc.Splice(outer, descendTo(profilePath), func(path []protowire.Number, _ []byte) ([]streamenc.Seg, bool) {
		if !slices.Equal(path, profilePath) {
			return nil, false
		}
		p := ps[k]
		seg := streamenc.Seg{N: e.bodies[k].n, Write: func(w io.Writer) error {
			if e.p != p {
				e.layout(p)
			}
			return e.writeBody(w, p, false)
		}}
		k++
		return []streamenc.Seg{seg}, true
	})
	if err != nil {
		return err
	}
	if !e.opts.Gzip {
		return streamenc.WriteSegs(w, segs)
	}
	zw := gzip.NewWriter(w)
	if err := streamenc.WriteSegs(zw, segs); err != nil {
		return err
	}
	return zw.Close()
}

// writeSpilledJSON writes the JSON of outer, ProfilesData with its Profile
// messages left empty, and of the bodies of ps made in the schema's order
// of fields as they are written, then a newline.
func (e *encoder) writeSpilledJSON(w io.Writer, outer []byte, ps []*model.Profile) error {
	fill := func(k int, emit func([]byte) error) error {
		if k >= len(ps) {
			return fmt.Errorf("internal error: otlp: profile %d of %d", k+1, len(ps))
		}
		p := ps[k]
		if e.p != p {
			e.layout(p)
		}
		return e.writeBody(emitter(emit), p, true)
	}
	write := func(w io.Writer) error {
		if err := otlpcommon.WriteJSONStreamed(w, outer, jsonDescriptor, "otlp json", profilePath, fill); err != nil {
			return fmt.Errorf("otlp: %v", err)
		}
		return nil
	}
	if !e.opts.Gzip {
		return write(w)
	}
	zw := gzip.NewWriter(w)
	if err := write(zw); err != nil {
		return err
	}
	return zw.Close()
}

// emitter is a writer that hands each write to a function.
type emitter func([]byte) error

func (f emitter) Write(b []byte) (int, error) {
	if err := f(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// wholeMemPerByte is what writing a message held whole may take per byte
// its profiles hold in memory (model.Profile.MemSize): its layout and the
// message.
const wholeMemPerByte = 1.75

// EncodeMemory is what Encode of p alone (json: as JSON) may take beyond
// p. A message held whole (below spillFrom) takes wholeMemPerByte times
// what p holds. One written as it is made holds no message: its count is
// the layout's, entry by entry as each step makes its arrays (every
// step's counted together, though a step lets go of its scratch before
// the next), the buffer of a piece and its largest entry, the text's
// buffer, and a quarter more.
func EncodeMemory(p *model.Profile, json bool) int64 {
	if sizeHint([]*model.Profile{p}) < spillFrom {
		return int64(wholeMemPerByte * float64(p.MemSize()))
	}
	const (
		perString   = 4 + 4 + 4 + 1 + 4 + 4 // index, marks, table, names, renumbering, the table reordered
		perLocation = 4 + 4 + 16 + 16       // index, order, sort key and the sort's scratch
		perFunction = 4 + 4                 // index, order
		perStack    = 4 + 8 + 4             // start, sort entry, written
		perLabelSet = 8                     // start and end in the attribute indices
		perLabel    = 8 + 24 + 80 + 4 + 8 + 24
		perValue    = 10 // the largest entry's bytes
		perLine     = 24
	)
	n := perString*int64(len(p.Strings)) + perLocation*int64(len(p.Locations)) +
		perFunction*int64(len(p.Functions)) + perStack*int64(p.Stacks.Len()+1) + perLabelSet*int64(len(p.LabelSets))
	for i := range p.LabelSets {
		n += perLabel * int64(len(p.LabelSets[i].Labels())+len(p.LabelSets[i].Attributes()))
	}
	// The largest entry, which a piece holds whole: a sample (its values,
	// timestamps and labels) or a location (its lines).
	largest := 0
	for i := range p.Samples {
		s := &p.Samples[i]
		largest = max(largest, len(s.Values())+len(s.Timestamps())+2*len(p.LabelSets[s.LabelSet].Labels()))
	}
	for i := range p.Locations {
		largest = max(largest, len(p.LocationLines(i))*perLine/perValue)
	}
	n += 2*int64(spillSize) + 2*perValue*int64(largest)
	// A gzip writer's state; with JSON, the text's buffer and the field
	// its pieces end within.
	n += 2 << 20
	if json {
		n += 1<<20 + 64<<10 + perValue*int64(largest)
	}
	return n + n/4
}
