package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"

	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// OTLP JSON is protobuf's JSON mapping with OTLP's changes (lowerCamelCase
// keys, hex trace/span/profile ids, 64-bit integers as decimal strings); the
// mapping itself is internal/codec/otlpcommon's, which walks the generated
// descriptors.

// AppendJSON appends ps as one OTLP JSON ProfilesData (one line, no
// newline) to b.
func AppendJSON(b []byte, ps []*model.Profile, opts EncodeOptions) ([]byte, error) {
	data, release, err := encode(ps, opts)
	if err != nil {
		return b, err
	}
	defer release()
	return protoToJSON(b, data)
}

func protoToJSON(b, data []byte) ([]byte, error) {
	return otlpcommon.BinaryToJSON(b, data, jsonDescriptor, "otlp json")
}

// jsonDescriptor describes the message OTLP JSON is written from.
var jsonDescriptor = (&pb.ProfilesData{}).ProtoReflect().Descriptor()

// jsonMessages reads one OTLP JSON object, or several one after the other
// (JSON lines, as the collector's fileexporter writes them). Where each
// message ends is found first, and each is then parsed in place, a slice
// of data: the decoder that finds the ends holds a message's text while it
// reads it, and is let go before the messages are parsed (a copy of each
// message beside the input was most of what reading a large one held).
func jsonMessages(data []byte, check bool) ([]*pb.ProfilesData, error) {
	type span struct{ start, end int64 }
	var spans []span
	var endErr error // where finding the next message failed, after spans
	dec := json.NewDecoder(bytes.NewReader(data))
	for n := 0; ; n++ {
		start := dec.InputOffset()
		if err := dec.Decode(&skipJSON{}); err != nil {
			if !errors.Is(err, io.EOF) || n == 0 {
				endErr = fmt.Errorf("otlp json: line %d: byte %d: %v", n+1, start, err)
			}
			break
		}
		spans = append(spans, span{start, dec.InputOffset()})
		if !dec.More() {
			break
		}
	}
	var out []*pb.ProfilesData
	for n, sp := range spans {
		// More after this message: its own line, or a line cut short.
		more := n < len(spans)-1 || endErr != nil
		pd := &pb.ProfilesData{}
		if err := otlpcommon.UnmarshalJSON(data[sp.start:sp.end], pd.ProtoReflect()); err != nil {
			return nil, jsonErr(n, more, err)
		}
		if check {
			if f := firstError(pd, nil); f != nil {
				return nil, jsonErr(n, more || n > 0, fmt.Errorf("%s: %s", f.Path, f.Msg))
			}
		}
		out = append(out, pd)
	}
	if endErr != nil {
		return nil, endErr
	}
	return out, nil
}

// skipJSON takes a JSON value without keeping it.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

func jsonErr(n int, lines bool, err error) error {
	if lines || n > 0 {
		return fmt.Errorf("otlp json: line %d: %v", n+1, err)
	}
	return fmt.Errorf("otlp json: %v", err)
}
