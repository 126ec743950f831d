package dwarfread

import (
	"bytes"
	"compress/flate"
	"debug/elf"
	ebin "encoding/binary"
	"os"
	"testing"
)

// TestInflatersAgree: every inflater gives the bytes debug/elf gives of
// the committed fixtures' compressed sections, asked for in steps as lazy
// sections ask, and an error for a stream cut short.
func TestInflatersAgree(t *testing.T) {
	for _, sec := range []struct{ path, name string }{
		{fixtures + "compressed/cxxprog", ".zdebug_info"},
		{fixtures + "compressed/cxxprog", ".zdebug_line"},
		{fixtures + "compressed/cprog", ".debug_info"},
	} {
		z, want := compressedSection(t, sec.path, sec.name)
		for _, name := range InflaterNames() {
			out := make([]byte, len(want))
			f := inflaters[name](z, out)
			n := 0
			for step := 1; n < len(out); step *= 3 {
				k, err := f.inflate(n + step)
				if err != nil {
					t.Fatalf("%s %s, %s: %v at %d", sec.path, sec.name, name, err, n)
				}
				if k < min(n+step, len(out)) {
					t.Fatalf("%s %s, %s: %d bytes inflated, %d asked for", sec.path, sec.name, name, k, n+step)
				}
				n = k
			}
			if !bytes.Equal(out, want) {
				t.Errorf("%s %s, %s: inflated bytes differ from debug/elf's", sec.path, sec.name, name)
			}
			cut := inflaters[name](z[:len(z)/2], make([]byte, len(want)))
			if _, err := cut.inflate(len(want)); err == nil {
				t.Errorf("%s %s, %s: no error for a stream cut in half", sec.path, sec.name, name)
			}
		}
	}
}

// TestLazyInflaters: the lazy reading answers as the whole one with each
// inflater, on the compressed fixtures and on this machine's libc.
func TestLazyInflaters(t *testing.T) {
	for _, name := range InflaterNames() {
		t.Run(name, func(t *testing.T) {
			defer UseInflater(t, name)()
			for _, fn := range []string{"compressed/cprog", "compressed/cxxprog", "compressed/libwork.so"} {
				b := openFile(t, fixtures+fn)
				checkLazy(t, fn, b, execAddrs(b, 3), 5, false)
			}
			TestLazyMatchesWholeLibc(t)
		})
	}
}

// BenchmarkInflaters inflates whole real DEFLATE streams with each
// inflater: the sections lazy reading inflates in this machine's libc
// debug file (SHF_COMPRESSED zlib; skipped where it is not installed),
// the .zdebug_info of the committed fixture compressed/cxxprog (binutils'
// zlib), and a fixture binary deflated by compress/flate at the default
// level. End to end through symbolization:
// BenchmarkSymbolizeInflaters.
func BenchmarkInflaters(b *testing.B) {
	bench := func(b *testing.B, name string, z, want []byte) {
		out := make([]byte, len(want))
		b.SetBytes(int64(len(want)))
		for b.Loop() {
			if _, err := inflaters[name](z, out).inflate(len(out)); err != nil {
				b.Fatal(err)
			}
		}
		// Checked once, after the timed loop: a compare of each
		// iteration's output would take cache and time from it.
		if !bytes.Equal(out, want) {
			b.Fatal("inflated bytes differ from the original")
		}
	}
	for _, sec := range []string{".debug_info", ".debug_line", ".debug_abbrev"} {
		b.Run("stream=libc"+sec, func(b *testing.B) {
			z, want := compressedSection(b, libcDebugFile(b), sec)
			for _, name := range InflaterNames() {
				b.Run("inflater="+name, func(b *testing.B) { bench(b, name, z, want) })
			}
		})
	}
	b.Run("stream=cxxprog.zdebug_info", func(b *testing.B) {
		z, want := compressedSection(b, fixtures+"compressed/cxxprog", ".zdebug_info")
		for _, name := range InflaterNames() {
			b.Run("inflater="+name, func(b *testing.B) { bench(b, name, z, want) })
		}
	})
	b.Run("stream=binary", func(b *testing.B) {
		want, err := os.ReadFile(fixtures + "bin/cxxprog")
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, flate.DefaultCompression)
		w.Write(want)
		w.Close()
		for _, name := range InflaterNames() {
			b.Run("inflater="+name, func(b *testing.B) { bench(b, name, buf.Bytes(), want) })
		}
	})
}

// compressedSection gives the raw DEFLATE stream of a zlib-compressed
// section of the ELF file at path (SHF_COMPRESSED, or a .zdebug_ section),
// and its bytes as debug/elf decompresses them (through compress/zlib).
func compressedSection(b testing.TB, path, name string) (z, want []byte) {
	ef, err := elf.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer ef.Close()
	s := ef.Section(name)
	if s == nil {
		b.Fatalf("%s: no section %s", path, name)
	}
	if want, err = s.Data(); err != nil {
		b.Fatal(err)
	}
	raw := make([]byte, s.FileSize)
	fh, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.ReadAt(raw, int64(s.Offset)); err != nil {
		b.Fatal(err)
	}
	skip := 12 // "ZLIB" and the size, big-endian
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		if ef.Class != elf.ELFCLASS64 || ebin.LittleEndian.Uint32(raw) != uint32(elf.COMPRESS_ZLIB) {
			b.Fatalf("%s %s: not a 64-bit zlib compression header", path, name)
		}
		skip = 24
	}
	// then RFC 1950's two-byte header
	return raw[skip+2:], want
}
