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
// (JSON lines, as the collector's fileexporter writes them).
func jsonMessages(data []byte, check bool) ([]*pb.ProfilesData, error) {
	var out []*pb.ProfilesData
	dec := json.NewDecoder(bytes.NewReader(data))
	for n := 0; ; n++ {
		var raw json.RawMessage
		start := dec.InputOffset()
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) && n > 0 {
				break
			}
			return nil, fmt.Errorf("otlp json: line %d: byte %d: %v", n+1, start, err)
		}
		pd := &pb.ProfilesData{}
		if err := otlpcommon.UnmarshalJSON(raw, pd.ProtoReflect()); err != nil {
			return nil, jsonErr(n, dec.More(), err)
		}
		if check {
			if f := firstError(pd); f != nil {
				return nil, jsonErr(n, dec.More() || n > 0, fmt.Errorf("%s: %s", f.Path, f.Msg))
			}
		}
		out = append(out, pd)
		if !dec.More() {
			break
		}
	}
	return out, nil
}

func jsonErr(n int, lines bool, err error) error {
	if lines || n > 0 {
		return fmt.Errorf("otlp json: line %d: %v", n+1, err)
	}
	return fmt.Errorf("otlp json: %v", err)
}
