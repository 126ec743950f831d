package otlp

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/pprofx/pprofx/internal/model"
)

// The collector's fileexporter (opentelemetry-collector-contrib
// exporter/fileexporter) writes profiles in one of two layouts:
//   - format: json (the default): one OTLP JSON ProfilesData per line;
//   - format: proto (or any compression): each binary ProfilesData after
//     its length as a 4-byte big-endian unsigned integer.
// The reader takes both (see Decode); the writers below write one message
// holding ps. Appending the output of several runs to one file gives a file
// of several messages, as the exporter writes over time.

// EncodeJSONLines writes ps as one JSON line (OTLP JSON and a newline).
func EncodeJSONLines(w io.Writer, ps []*model.Profile, opts EncodeOptions) error {
	if sizeHint(ps) >= streamFrom {
		return encodeJSONStreamed(w, ps, opts)
	}
	data, release, err := encode(ps, opts)
	if err != nil {
		return err
	}
	defer release()
	return writeJSON(w, data, opts.Gzip)
}

// EncodeFramed writes ps as one binary ProfilesData after its 4-byte
// big-endian length.
func EncodeFramed(w io.Writer, ps []*model.Profile, opts EncodeOptions) error {
	if sizeHint(ps) >= streamFrom {
		return encodeStreamed(w, ps, opts, true)
	}
	data, release, err := encode(ps, opts)
	if err != nil {
		return err
	}
	defer release()
	if uint64(len(data)) > 1<<32-1 {
		return fmt.Errorf("otlp: message of %d bytes does not fit a 4-byte length", len(data))
	}
	var head [4]byte
	binary.BigEndian.PutUint32(head[:], uint32(len(data)))
	if !opts.Gzip {
		if _, err := w.Write(head[:]); err != nil {
			return err
		}
		_, err := w.Write(data)
		return err
	}
	zw := newGzip(w, int64(len(head)+len(data)))
	if _, err := zw.Write(head[:]); err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

// splitFramed splits data into 4-byte-length-framed messages when it is
// one: it starts with a byte below 8 (a first length under 128 MiB; no
// ProfilesData starts so, as no field tag has the number 0) and the
// frames end exactly at its end. The collector's file exporter writes a
// large batch as one message: a length of 16 MiB and more starts with 1
// to 7.
func splitFramed(data []byte) ([][]byte, bool) {
	if !FramedStart(data) {
		return nil, false
	}
	var out [][]byte
	for len(data) > 0 {
		if len(data) < 4 {
			return nil, false
		}
		n := binary.BigEndian.Uint32(data)
		if uint64(n) > uint64(len(data)-4) {
			return nil, false
		}
		out = append(out, data[4:4+n])
		data = data[4+n:]
	}
	return out, true
}

// framingError says where data, which starts as a framed file
// (FramedStart) but is none, breaks its framing.
func framingError(data []byte) error {
	at, i := 0, 0
	for ; len(data) >= 4; i++ {
		n := binary.BigEndian.Uint32(data)
		if uint64(n) > uint64(len(data)-4) {
			return fmt.Errorf("otlp: framed message %d at byte %d: %d bytes, past the end of the input (%d left): cut short or not a framed file", i, at, n, len(data)-4)
		}
		at, data = at+4+int(n), data[4+n:]
	}
	return fmt.Errorf("otlp: framed message %d at byte %d: %d bytes left, too few for a 4-byte length: cut short or not a framed file", i, at, len(data))
}

// FramedStart reports whether data, an uncompressed binary input, starts
// as a framed file: with a 4-byte big-endian length under 128 MiB, whose
// first byte (below 8) no protobuf message starts with.
func FramedStart(data []byte) bool { return len(data) >= 4 && data[0] < 8 }
