package perfscript_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/codec/perfscript"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

func FuzzDecode(f *testing.F) {
	f.Add([]byte("a 1 1.0: cycles: \n\t1 foo+0x1 (bar)\n\n"))
	f.Add([]byte("Web Content 2 1200/1201 [003] 100.000250:     250000 cpu-clock:pppH: \n\t7f [unknown] (/x (deleted))\n"))
	f.Add([]byte("java 8 1.000002:     100 cpu-clock: \n\t7f a->b->c+0x0 (/tmp/perf-8.map)\n\t132a mix (inlined)\n  x.c:3\n"))
	for _, name := range []string{"dwarf.txt", "multi.txt", "mono-header.txt", "flat.txt", "fp-srcline.txt"} {
		if data, err := os.ReadFile("../../../testdata/perf/" + name); err == nil {
			f.Add(data[:min(len(data), 4096)])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p *model.Profile
		var err error
		if alloc, over := memcheck.Over(allocBound(len(data)), func() {
			p, err = perfscript.Decode(bytes.NewReader(data), perfscript.Options{})
		}); over {
			t.Fatalf("allocated %d bytes for a %d-byte input (bound %d)", alloc, len(data), allocBound(len(data)))
		}
		if err != nil {
			if bytes.Contains([]byte(err.Error()), []byte("\n")) {
				t.Fatalf("error on more than one line: %v", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
		var out bytes.Buffer
		if err := folded.Encode(&out, p, folded.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// allocBound is what Decode may allocate for an input of n bytes: the
// line buffer and tables, and a multiple of the input.
func allocBound(n int) uint64 { return 2<<20 + 128*uint64(n) }
