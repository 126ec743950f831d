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
