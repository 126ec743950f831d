package formats

import (
	"bufio"
	"io"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/detect"
)

// Output formats of pprof.
const (
	OutPprof    OutFormat = "pprof"
	OutPprofRaw OutFormat = "pprof-raw"
)

func init() {
	registerReader(detect.Pprof, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		// DecodeRaw keeps nothing of its input, so the buffer is reused.
		// The framing is checked as the bytes arrive: a bad input fails at
		// its first bad byte, before the rest is read.
		return withBuffer(&pprof.FrameChecker{R: r, Limit: opts.limit()}, opts.sizeHint, func(data []byte, keep bool) error {
			decode := pprof.DecodeRaw
			if keep {
				// A buffer too large to reuse is handed to the profile: its
				// strings point into it rather than being copied.
				decode = pprof.DecodeRawOwned
			}
			p, err := decode(data)
			if err != nil {
				return err
			}
			in.Items = []Item{{Profile: p}}
			return nil
		})
	})
	for _, f := range []OutFormat{OutPprof, OutPprofRaw} {
		raw := f == OutPprofRaw
		w := writer{
			desc:        "pprof profile.proto, gzipped (.pb.gz, .pprof)",
			suffixes:    []string{".pb.gz", ".pprof", ".pprof.gz"},
			memPerByte:  pprofMemPerByte,
			compressMem: pprof.GzipMemory,
			write: func(w io.Writer, items []Item, opts WriteOptions) error {
				if s := items[0].Stream; s != nil {
					pprofextended.FoldForPprof(s.Tables, opts.Warn)
					return pprof.EncodeStream(w, s.Tables, s.Samples, pprof.EncodeOptions{Raw: raw, Warn: opts.Warn})
				}
				// What pprof has no field for but a profile read from OTLP
				// (or a bundle of one) holds becomes comments and labels;
				// for any other profile this only looks.
				pprofextended.FoldForPprof(items[0].Profile, opts.Warn)
				return pprof.Encode(w, items[0].Profile, pprof.EncodeOptions{Raw: raw, Warn: opts.Warn})
			},
		}
		if raw {
			w.desc, w.suffixes = "pprof profile.proto, uncompressed (.pb)", []string{".pb"}
			w.compressMem = nil
		}
		registerWriter(f, w)
	}
}
