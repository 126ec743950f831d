package gperftools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// file builds a profile in layout l from slots.
type file struct {
	l   Layout
	buf []byte
}

func newFile(l Layout) *file { return &file{l: l} }

func (f *file) slots(v ...uint64) *file {
	for _, x := range v {
		switch {
		case f.l.SlotSize == 8 && f.l.BigEndian:
			f.buf = binary.BigEndian.AppendUint64(f.buf, x)
		case f.l.SlotSize == 8:
			f.buf = binary.LittleEndian.AppendUint64(f.buf, x)
		case f.l.BigEndian:
			f.buf = binary.BigEndian.AppendUint32(f.buf, uint32(x))
		default:
			f.buf = binary.LittleEndian.AppendUint32(f.buf, uint32(x))
		}
	}
	return f
}

// header writes the standard header with this period (µs).
func (f *file) header(period uint64) *file { return f.slots(0, 3, 0, period, 0) }

// rec writes a record of count at pcs (leaf first).
func (f *file) rec(count uint64, pcs ...uint64) *file {
	return f.slots(count, uint64(len(pcs))).slots(pcs...)
}

func (f *file) trailer() *file { return f.slots(0, 1, 0) }

func (f *file) text(s string) *file {
	f.buf = append(f.buf, s...)
	return f
}

var le64 = Layout{8, false}

type result struct {
	p     *model.Profile
	info  *Info
	warns []string
}

func decode(t *testing.T, b []byte, opts Options) result {
	t.Helper()
	var r result
	opts.Warn = func(m string) { r.warns = append(r.warns, m) }
	p, info, err := Decode(bytes.NewReader(b), opts)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	r.p, r.info = p, info
	return r
}

func decodeErr(t *testing.T, b []byte, opts Options, wants ...string) {
	t.Helper()
	p, _, err := Decode(bytes.NewReader(b), opts)
	if err == nil {
		t.Fatalf("Decode succeeded with %d samples, want an error containing %q", len(p.Samples), wants)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q is not one line", err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

// samples renders each sample as "count@addr,addr,..." in sample order.
func samples(p *model.Profile) []string {
	var out []string
	for _, s := range p.Samples {
		var a []string
		for _, li := range p.Stacks.Append(nil, int(s.Stack)) {
			a = append(a, fmt.Sprintf("%#x", p.Locations[li].Address))
		}
		out = append(out, fmt.Sprintf("%d@%s", s.Values()[0], strings.Join(a, ",")))
	}
	return out
}

func TestDetectLayout(t *testing.T) {
	for _, l := range []Layout{{8, false}, {8, true}, {4, false}, {4, true}} {
		b := newFile(l).header(10000).buf
		got, ok := DetectLayout(b)
		if !ok || got != l {
			t.Errorf("%v: DetectLayout = %v, %v", l, got, ok)
		}
		// Slots 0-2 are enough.
		if got, ok := DetectLayout(b[:3*l.SlotSize]); !ok || got != l {
			t.Errorf("%v from 3 slots: DetectLayout = %v, %v", l, got, ok)
		}
		r := decode(t, b, Options{})
		if r.info.Layout != l || r.info.PeriodMicros != 10000 || r.p.Period != 10_000_000 {
			t.Errorf("%v: info %+v period %d", l, r.info, r.p.Period)
		}
	}
	// Read as 64-bit little-endian, a 64-bit big-endian header has header
	// words 0x0300000000000000: the bound keeps it out.
	be := newFile(Layout{8, true}).header(1).buf
	if binary.LittleEndian.Uint64(be[8:]) != 0x0300000000000000 {
		t.Fatal("test setup")
	}
	for _, b := range [][]byte{
		nil,
		[]byte("\x1f\x8b\x08\x00 a gzip file"),
		newFile(le64).slots(0, 2, 0, 1, 0).buf,  // header words < 3
		newFile(le64).slots(0, 64, 0, 1, 0).buf, // header words >= 64
		newFile(le64).slots(1, 3, 0, 1, 0).buf,  // header count != 0
		make([]byte, 11),
	} {
		if l, ok := DetectLayout(b); ok {
			t.Errorf("DetectLayout(%x) = %v, true", b, l)
		}
	}
}

func TestHeader(t *testing.T) {
	t.Run("extra header words are skipped", func(t *testing.T) {
		for _, l := range []Layout{{8, false}, {4, true}} {
			b := newFile(l).slots(0, 6, 0, 2500, 0, 0xdead, 0xbeef, 0xf00d).rec(3, 0x1000).trailer().buf
			r := decode(t, b, Options{})
			if r.info.HeaderWords != 6 || r.p.Period != 2_500_000 {
				t.Errorf("%v: header words %d period %d", l, r.info.HeaderWords, r.p.Period)
			}
			if got := samples(r.p); !reflect.DeepEqual(got, []string{"3@0x1000"}) {
				t.Errorf("%v: samples %v", l, got)
			}
		}
	})
	t.Run("version", func(t *testing.T) {
		decodeErr(t, newFile(le64).slots(0, 3, 1, 10000, 0).buf, Options{}, "version 1", "Java", "byte 16")
		decodeErr(t, newFile(Layout{4, true}).slots(0, 3, 7, 10000, 0).buf, Options{}, "version 7", "byte 8")
	})
	t.Run("period 0", func(t *testing.T) {
		decodeErr(t, newFile(le64).header(0).buf, Options{}, "period is 0", "byte 24")
	})
	t.Run("period overflows int64 ns", func(t *testing.T) {
		decodeErr(t, newFile(le64).header(math.MaxInt64/1000+1).buf, Options{}, "overflows", "byte 24")
	})
	t.Run("empty file", func(t *testing.T) {
		decodeErr(t, nil, Options{}, "empty file")
	})
	t.Run("header cut", func(t *testing.T) {
		b := newFile(le64).header(10000).buf
		decodeErr(t, b[:30], Options{}, "header cut at byte 30")
		decodeErr(t, b[:10], Options{}, "header cut at byte 10")
		decodeErr(t, newFile(Layout{4, false}).header(10000).buf[:16], Options{}, "header cut at byte 16")
	})
	t.Run("not a profile", func(t *testing.T) {
		decodeErr(t, []byte("--- heapz 1 ---\n"), Options{}, "not a gperftools CPU profile")
	})
	t.Run("header only is an empty profile", func(t *testing.T) {
		r := decode(t, newFile(le64).header(10000).buf, Options{})
		if len(r.p.Samples) != 0 || r.info.Records != 0 || r.info.Trailer {
			t.Errorf("samples %d info %+v", len(r.p.Samples), r.info)
		}
		if len(r.warns) != 1 || !strings.Contains(r.warns[0], "no trailer") {
			t.Errorf("warnings %q", r.warns)
		}
		r = decode(t, newFile(le64).header(10000).trailer().buf, Options{})
		if len(r.p.Samples) != 0 || !r.info.Trailer || len(r.warns) != 0 {
			t.Errorf("with trailer: samples %d info %+v warnings %q", len(r.p.Samples), r.info, r.warns)
		}
	})
}

func TestRecords(t *testing.T) {
	t.Run("identical stacks are summed in first-seen order", func(t *testing.T) {
		b := newFile(le64).header(10000).
			rec(1, 0x10, 0x21, 0x31).
			rec(2, 0x11, 0x21).
			rec(4, 0x10, 0x21, 0x31).
			rec(8, 0x11, 0x21).
			rec(16, 0x12).
			trailer().buf
		r := decode(t, b, Options{})
		want := []string{"5@0x10,0x20,0x30", "10@0x11,0x20", "16@0x12"}
		if got := samples(r.p); !reflect.DeepEqual(got, want) {
			t.Errorf("samples %v, want %v", got, want)
		}
		for _, s := range r.p.Samples {
			if s.Values()[1] != s.Values()[0]*10_000_000 || s.LabelSet != 0 || s.Link != model.NoLink {
				t.Errorf("sample %+v", s)
			}
		}
		if r.info.Records != 5 || r.info.Stacks != 3 || r.info.TotalCount != 31 || r.info.MaxDepth != 3 || r.info.Locations != 5 {
			t.Errorf("info %+v", r.info)
		}
		p := r.p
		st := func(i int32) string { return p.String(p.SampleTypes[i].Type) + "/" + p.String(p.SampleTypes[i].Unit) }
		if len(p.SampleTypes) != 2 || st(0) != "samples/count" || st(1) != "cpu/nanoseconds" ||
			p.String(p.PeriodType.Type) != "cpu" || p.String(p.PeriodType.Unit) != "nanoseconds" {
			t.Errorf("sample types %s %s period type %+v", st(0), st(1), p.PeriodType)
		}
		if p.String(p.DropFrames) != DropFrames {
			t.Errorf("drop_frames %q", p.String(p.DropFrames))
		}
	})
	t.Run("return addresses minus one, never below 0", func(t *testing.T) {
		b := newFile(le64).header(1).rec(1, 0, 0, 1, 0x100).trailer().buf
		r := decode(t, b, Options{})
		if got, want := samples(r.p), []string{"1@0x0,0x0,0x0,0xff"}; !reflect.DeepEqual(got, want) {
			t.Errorf("samples %v, want %v", got, want)
		}
		if len(r.p.Locations) != 2 {
			t.Errorf("%d locations, want 2 (0 and 0xff)", len(r.p.Locations))
		}
	})
	t.Run("stacks equal after adjustment are one sample", func(t *testing.T) {
		// Non-leaf PCs 0 and 1 both become address 0.
		b := newFile(le64).header(1).rec(1, 5, 0).rec(2, 5, 1).trailer().buf
		if got, want := samples(decode(t, b, Options{}).p), []string{"3@0x5,0x0"}; !reflect.DeepEqual(got, want) {
			t.Errorf("samples %v, want %v", got, want)
		}
	})
	t.Run("no frame-eating heuristics", func(t *testing.T) {
		// Recursion: the leaf equals its caller's return address; and 40
		// records share a second frame. pprof would drop frames; we keep all.
		f := newFile(Layout{4, false}).header(10000).rec(7, 0x501, 0x501, 0x700)
		for i := uint64(0); i < 40; i++ {
			f.rec(1, 0x1000+i, 0x2001, 0x3001)
		}
		r := decode(t, f.trailer().buf, Options{})
		got := samples(r.p)
		if got[0] != "7@0x501,0x500,0x6ff" || len(got) != 41 || got[40] != "1@0x1027,0x2000,0x3000" {
			t.Errorf("samples %v", got)
		}
	})
	t.Run("count × period overflow", func(t *testing.T) {
		b := newFile(le64).header(1000).rec(math.MaxInt64/1_000_000+1, 0x10).trailer().buf
		decodeErr(t, b, Options{}, "record 1 at byte 40", "overflows int64")
		half := uint64(math.MaxInt64/1_000_000/2 + 1)
		b = newFile(le64).header(1000).rec(half, 0x10).rec(1, 0x20).rec(half, 0x10).trailer().buf
		decodeErr(t, b, Options{}, "record 3 at byte 88", "overflows int64")
		b = newFile(le64).header(1000).rec(half, 0x10, 0).rec(half, 0x10, 1).trailer().buf
		decodeErr(t, b, Options{}, "record 2 at byte 72", "overflows int64")
		r := decode(t, b, Options{Salvage: true})
		if got := samples(r.p); !reflect.DeepEqual(got, []string{fmt.Sprintf("%d@0x10,0x0", half)}) {
			t.Errorf("salvaged %v", got)
		}
		// The largest count that fits is fine.
		b = newFile(le64).header(1000).rec(math.MaxInt64/1_000_000, 0x10).trailer().buf
		if got := decode(t, b, Options{}).p.Samples[0].Values()[1]; got != math.MaxInt64/1_000_000*1_000_000 {
			t.Errorf("cpu %d", got)
		}
	})
	t.Run("num_pcs past the end", func(t *testing.T) {
		b := newFile(le64).header(1).rec(1, 0x10).slots(1, 1<<20, 0x10, 0x20).buf
		for name, r := range map[string]io.Reader{
			"sized":    bytes.NewReader(b),
			"streamed": iotest.HalfReader(bytes.NewReader(b)),
		} {
			var err error
			alloc := memcheck.Of(func() { _, _, err = Decode(r, Options{}) })
			if err == nil || !strings.Contains(err.Error(), "record 2 at byte 64") || !strings.Contains(err.Error(), "num_pcs 1048576") {
				t.Errorf("%s: error %v", name, err)
			}
			if alloc > 1<<20 {
				t.Errorf("%s: allocated %d bytes for a %d-byte file", name, alloc, len(b))
			}
		}
		decodeErr(t, newFile(le64).header(1).slots(1, 1<<40).buf, Options{}, "record 1 at byte 40", "num_pcs 1099511627776")
	})
	t.Run("bad records", func(t *testing.T) {
		decodeErr(t, newFile(le64).header(1).rec(1, 0x10).slots(1, 0).trailer().buf, Options{}, "record 2 at byte 64", "num_pcs is 0")
		decodeErr(t, newFile(le64).header(1).rec(0, 0x10).trailer().buf, Options{}, "record 1 at byte 40", "sample count is 0")
		decodeErr(t, newFile(le64).header(1).rec(0, 0, 0).trailer().buf, Options{}, "record 1 at byte 40", "sample count is 0")
	})
	t.Run("a record longer than the read buffer", func(t *testing.T) {
		pcs := make([]uint64, 10000) // 80 KB
		for i := range pcs {
			pcs[i] = uint64(0x1000 + 16*i)
		}
		b := newFile(le64).header(1).rec(2, pcs...).rec(1, 0x5).rec(3, pcs...).trailer().buf
		for _, r := range []io.Reader{bytes.NewReader(b), iotest.OneByteReader(bytes.NewReader(b))} {
			p, info, err := Decode(r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Samples) != 2 || p.Samples[0].Values()[0] != 5 || p.Stacks.Len() != 2 || len(p.Stacks.Append(nil, 0)) != 10000 || info.MaxDepth != 10000 {
				t.Errorf("samples %d, first %v, depth %d", len(p.Samples), p.Samples[0].Values(), info.MaxDepth)
			}
			if a := p.Locations[p.Stacks.Append(nil, 0)[9999]].Address; a != 0x1000+16*9999-1 {
				t.Errorf("last frame %#x", a)
			}
		}
	})
}

func TestTrailerAndTruncation(t *testing.T) {
	full := newFile(le64).header(10000).rec(1, 0x10, 0x21).rec(2, 0x11).trailer().buf
	body := full[:len(full)-24]
	t.Run("no trailer", func(t *testing.T) {
		r := decode(t, body, Options{})
		if got, want := samples(r.p), []string{"1@0x10,0x20", "2@0x11"}; !reflect.DeepEqual(got, want) {
			t.Errorf("samples %v", got)
		}
		if r.info.Trailer || len(r.warns) != 1 || !strings.Contains(r.warns[0], "no trailer after 2 records (byte 96)") {
			t.Errorf("trailer %v warnings %q", r.info.Trailer, r.warns)
		}
	})
	t.Run("cut records", func(t *testing.T) {
		// Every cut inside the second record or the trailer.
		for cut := 72 + 1; cut < len(full); cut++ {
			if cut == 96 {
				continue // at a record boundary: no trailer, not cut
			}
			recAt := "record 2 at byte 72"
			if cut > 96 {
				recAt = "record 3 at byte 96"
			}
			decodeErr(t, full[:cut], Options{}, recAt)
			r := decode(t, full[:cut], Options{Salvage: true})
			want := []string{"1@0x10,0x20"}
			if cut > 96 {
				want = append(want, "2@0x11")
			}
			if got := samples(r.p); !reflect.DeepEqual(got, want) {
				t.Errorf("cut %d, salvaged samples %v, want %v", cut, got, want)
			}
			if !r.info.Salvaged || len(r.warns) != 1 || !strings.Contains(r.warns[0], recAt) {
				t.Errorf("cut %d: salvaged %v warnings %q", cut, r.info.Salvaged, r.warns)
			}
		}
	})
	t.Run("salvage past a bad record", func(t *testing.T) {
		b := newFile(le64).header(1).rec(1, 0x10).slots(0, 2, 0x10, 0x20).rec(5, 0x30).trailer().buf
		r := decode(t, b, Options{Salvage: true})
		if got := samples(r.p); !reflect.DeepEqual(got, []string{"1@0x10"}) || !r.info.Salvaged {
			t.Errorf("samples %v info %+v", got, r.info)
		}
	})
	t.Run("read errors are not salvaged", func(t *testing.T) {
		boom := errors.New("boom")
		r := io.MultiReader(bytes.NewReader(full[:50]), iotest.ErrReader(boom))
		_, _, err := Decode(r, Options{Salvage: true})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "reading at byte 50") {
			t.Errorf("error %v", err)
		}
	})
}

const mapsText = "# comment line, ignored\n" +
	"00400000-00401000 r--p 00000000 08:01 1234       /usr/lib/libfoo.so.1\n" +
	"00401000-00402000 r-xp 00001000 08:01 1234       /usr/lib/libfoo.so.1\r\n" +
	"0x7f0000001000-0x7f0000002000 r-xp 0x00002000 fd:00 42   /opt/my app/bin/server (deleted)\n" +
	"7f0000003000-7f0000004000 r-xs 00000000 00:05 7 /dev/shm/jit code\n" +
	"7fff00000000-7fff00001000 r-xp 00000000 00:00 0                          [vdso]\n" +
	"7fff00002000-7fff00003000 rwxp 00000000 00:00 0\n" +
	"7fff00004000-7fff00005000 rw-p 00000000 00:00 0 [stack]\n" +
	"garbage-line r-xp\n" +
	"8000-7000 r-xp 00000000 00:00 0 /backwards\n" +
	"9000-a000 r-xp 00000000 00:00 /no-inode\n" +
	"ffffffffffff0000-ffffffffffff1000 --xp 00000000 00:00 0 [vsyscall]"

func TestMaps(t *testing.T) {
	b := newFile(le64).header(1).
		rec(1, 0x00401010, 0x7f0000001801, 0x7fff00002001, 0x5).
		rec(1, 0x7f0000003003, 0x7fff00000100).
		trailer().text(mapsText).buf
	r := decode(t, b, Options{})
	p := r.p
	type m struct {
		start, limit, offset uint64
		file                 string
	}
	var got []m
	for _, mp := range p.Mappings {
		got = append(got, m{mp.Start, mp.Limit, mp.Offset, p.String(mp.File)})
	}
	want := []m{
		{0x7f0000001000, 0x7f0000002000, 0x2000, "/opt/my app/bin/server"}, // the main binary first
		{0x00401000, 0x00402000, 0x1000, "/usr/lib/libfoo.so.1"},
		{0x7f0000003000, 0x7f0000004000, 0, "/dev/shm/jit code"},
		{0x7fff00000000, 0x7fff00001000, 0, "[vdso]"},
		{0x7fff00002000, 0x7fff00003000, 0, ""},
		{0xffffffffffff0000, 0xffffffffffff1000, 0, "[vsyscall]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mappings\n got %x\nwant %x", got, want)
	}
	// Two warnings: the deleted file, and the last line with no newline
	// (kept, since it parses).
	if len(r.info.Deleted) != 1 || r.info.Deleted[0] != "/opt/my app/bin/server" || len(r.warns) != 2 ||
		!strings.Contains(r.warns[0], "deleted") || !strings.Contains(r.warns[1], "does not end with a newline") {
		t.Errorf("deleted %q warnings %q", r.info.Deleted, r.warns)
	}
	wantMap := map[uint64]int32{
		0x00401010:     1,
		0x7f0000001800: 0,
		0x7fff00002000: 4,
		0x4:            model.NoMapping,
		0x7f0000003003: 2,
		0x7fff000000ff: 3,
	}
	for _, l := range p.Locations {
		if w, ok := wantMap[l.Address]; !ok || l.Mapping != w {
			t.Errorf("location %#x: mapping %d, want %d", l.Address, l.Mapping, w)
		}
	}
	if r.info.Unmapped != 1 || r.info.Mappings != 6 || r.info.MapsBytes != int64(len(mapsText)) || r.info.DataBytes != int64(len(b)-len(mapsText)) {
		t.Errorf("info %+v", r.info)
	}
}

func TestMapsEdges(t *testing.T) {
	long := strings.Repeat("x", bufSize+100)
	text := "00001000-00002000 r-xp 00000000 00:00 1 /a/" + long + "\n" +
		"00002000-00003000 r-xp 00000000 00:00 1 /bin/main\n" +
		"00003000-00004000 r-xp 00000000 00:00 1 /" + long // cut, no newline
	b := newFile(Layout{4, true}).header(1).rec(1, 0x2800).trailer().text(text).buf
	r := decode(t, b, Options{})
	if len(r.p.Mappings) != 1 || r.p.String(r.p.Mappings[0].File) != "/bin/main" || r.p.Locations[0].Mapping != 0 {
		t.Errorf("mappings %+v", r.p.Mappings)
	}
	// Overlapping mappings: the first in profile order wins.
	text = "1000-9000 r-xp 00000000 00:00 1 /bin/main\n3000-4000 r-xp 00000000 00:00 1 /lib/libx.so\n"
	b = newFile(le64).header(1).rec(1, 0x3500, 0x8fff+1, 0x9000+1).trailer().text(text).buf
	r = decode(t, b, Options{})
	for i, want := range []int32{0, 0, model.NoMapping} {
		if got := r.p.Locations[i].Mapping; got != want {
			t.Errorf("location %#x: mapping %d, want %d", r.p.Locations[i].Address, got, want)
		}
	}
}

func TestStreamingAndDeterminism(t *testing.T) {
	for _, fx := range fixtures {
		data := readFixture(t, fx.file)
		a, ia, err := Decode(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, ib, err := Decode(iotest.OneByteReader(bytes.NewReader(data)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ia, ib) {
			t.Errorf("%s: one byte at a time decodes differently", fx.file)
		}
	}
}

// TestMappingIndex checks the segment index against a brute-force search on
// random, heavily overlapping mappings: each address belongs to the first
// mapping (in profile order) containing it.
func TestMappingIndex(t *testing.T) {
	rng := uint64(1)
	next := func(n uint64) uint64 {
		rng = rng*6364136223846793005 + 1442695040888963407
		return (rng >> 33) % n
	}
	for round := 0; round < 200; round++ {
		var maps []model.Mapping
		for i := next(12); i > 0; i-- {
			a, b := next(100), next(100)
			maps = append(maps, model.Mapping{Start: min(a, b), Limit: max(a, b)})
		}
		x := newMappingIndex(maps)
		for a := uint64(0); a < 101; a++ {
			want := int32(model.NoMapping)
			for i, m := range maps {
				if m.Start <= a && a < m.Limit {
					want = int32(i)
					break
				}
			}
			if got := x.find(a); got != want {
				t.Fatalf("round %d, mappings %v: address %d in mapping %d, want %d", round, maps, a, got, want)
			}
		}
	}
}

// A small regular file, whose size Decode takes from Stat, with the largest
// header: the read buffer is sized down but still holds the header.
func TestSmallFile(t *testing.T) {
	f := newFile(le64).slots(0, MaxHeaderWords-1, 0, 10000, 0)
	for i := 5; i < 2+MaxHeaderWords-1; i++ {
		f.slots(0)
	}
	b := f.rec(2, 0x10).trailer().buf
	path := t.TempDir() + "/small.prof"
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(b), 100} {
		os.WriteFile(path, b[:cut], 0o644)
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p, info, err := Decode(fh, Options{})
		fh.Close()
		if cut == 100 {
			if err == nil || !strings.Contains(err.Error(), "header cut at byte 100") {
				t.Errorf("cut header: %v", err)
			}
			continue
		}
		if err != nil || info.HeaderWords != MaxHeaderWords-1 || len(p.Samples) != 1 {
			t.Errorf("err %v, info %+v", err, info)
		}
	}
}

// A real file cut inside its maps text, in the path of an executable
// line: the records are whole, so it decodes, with a warning that mappings
// after the cut may be lost (once it lost 7 of 11 in silence) and that the
// last line's path may be cut short. That line's address range comes
// before the path and is whole, so the mapping is kept.
func TestMapsTextCut(t *testing.T) {
	full, err := os.ReadFile("../../../testdata/gperftools/le64-100hz.prof")
	if err != nil {
		t.Fatal(err)
	}
	whole := decode(t, full, Options{})
	if len(whole.warns) != 0 {
		t.Fatalf("the whole file warned: %q", whole.warns)
	}
	text := string(full[whole.info.DataBytes:])
	lines := strings.SplitAfter(text, "\n")
	at, k := 0, -1
	for i, l := range lines {
		if strings.Contains(l, " r-xp ") && strings.Contains(l, "/usr/lib/") && i < len(lines)-2 {
			k = i
			break
		}
		at += len(l)
	}
	if k < 0 {
		t.Fatal("no executable library line in the maps text")
	}
	cutLine := lines[k][:strings.Index(lines[k], "/usr/lib/")+len("/usr/lib/")]
	cut := full[:int(whole.info.DataBytes)+at+len(cutLine)]
	r := decode(t, cut, Options{})
	if len(r.warns) != 1 || !strings.Contains(r.warns[0], "does not end with a newline") || !strings.Contains(r.warns[0], cutLine) {
		t.Fatalf("warnings %q, want one naming %q", r.warns, cutLine)
	}
	if len(r.p.Mappings) >= len(whole.p.Mappings) {
		t.Fatalf("%d mappings of %d", len(r.p.Mappings), len(whole.p.Mappings))
	}
	last, ok := parseMapsLine([]byte(cutLine))
	if !ok {
		t.Fatalf("%q does not parse", cutLine)
	}
	found := false
	for _, m := range r.p.Mappings {
		found = found || m.Start == last.start && m.Limit == last.limit && r.p.String(m.File) == "/usr/lib/"
	}
	if !found {
		t.Fatalf("the cut line's mapping %x-%x is not kept", last.start, last.limit)
	}
	if r.info.Records != whole.info.Records {
		t.Fatalf("records %d, want %d", r.info.Records, whole.info.Records)
	}
}
