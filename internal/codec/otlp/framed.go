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
// one: it starts with a zero byte (a length under 16 MiB; a plain
// ProfilesData never starts with 0, which is no field tag) and the frames
// end exactly at its end.
func splitFramed(data []byte) ([][]byte, bool) {
	if len(data) < 4 || data[0] != 0 {
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

// LooksFramed reports whether head (the first bytes of an uncompressed
// input) starts a fileexporter framed file: a 4-byte length under 16 MiB
// then a ProfilesData field tag (resource_profiles or dictionary).
func LooksFramed(head []byte) bool {
	return len(head) >= 5 && head[0] == 0 && binary.BigEndian.Uint32(head) > 0 && (head[4] == 0x0a || head[4] == 0x12)
}
