package otlp

import (
	"fmt"

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
// (JSON lines, as the collector's fileexporter writes them), as
// binaryMessage reads its binary encoding (otlpcommon.JSONToBinary): the
// tables and samples go to the model's layout, not to the generated
// structs of the whole text. Where each message ends is found first, and
// each is then read in place, a slice of data: the decoder that finds the
// ends holds a message's text while it reads it, and is done before the
// messages are read.
func jsonMessages(data []byte, opts DecodeOptions, check bool) (*Parsed, error) {
	// Where finding the next message failed, after spans.
	spans, endErr := otlpcommon.JSONValues(data)
	if endErr != nil {
		endErr = fmt.Errorf("otlp json: line %d: %v", len(spans)+1, endErr)
	}
	// The text's field names are those of the current Sample layout.
	opts.Layout, opts.fromJSON = LayoutV110, true
	p := &Parsed{}
	for n, sp := range spans {
		// More after this message: its own line, or a line cut short.
		more := n < len(spans)-1 || endErr != nil
		wire, err := otlpcommon.JSONToBinary(data[sp[0]:sp[1]], jsonDescriptor)
		if err != nil {
			return nil, jsonErr(n, more, err)
		}
		pd, ct, _, err := binaryMessage(wire, opts, check)
		if err != nil {
			return nil, jsonErr(n, more, err)
		}
		p.Messages = append(p.Messages, pd)
		p.Layouts = append(p.Layouts, LayoutAuto)
		if ct != nil {
			p.cts = append(p.cts, make([]*compactTables, n+1-len(p.cts))...)
			p.cts[n] = ct
		}
	}
	if endErr != nil {
		return nil, endErr
	}
	return p, nil
}

func jsonErr(n int, lines bool, err error) error {
	if lines || n > 0 {
		return fmt.Errorf("otlp json: line %d: %v", n+1, err)
	}
	return fmt.Errorf("otlp json: %v", err)
}
