package gperftools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// goldenFile builds a synthetic file that exercises what the fixtures are too
// small for: table growth, many chunks of keys, shared prefixes and
// suffixes, stacks differing in one slot only, and non-leaf PCs 0 and 1
// (which adjust to the same address).
func goldenFile(l Layout) []byte {
	f := newFile(l).header(10000)
	rng := uint64(0x2545f4914f6cdd1d)
	next := func() uint64 {
		rng ^= rng >> 12
		rng ^= rng << 25
		rng ^= rng >> 27
		return rng * 2685821657736338717
	}
	const nStacks = 3000
	stacks := make([][]uint64, nStacks)
	for i := range stacks {
		depth := 1 + int(next()%40)
		if i%7 == 0 && i > 0 {
			// Same as an earlier stack but one slot.
			prev := stacks[i-1]
			s := append([]uint64(nil), prev...)
			s[int(next()%uint64(len(s)))] ^= 0x10
			stacks[i] = s
			continue
		}
		s := make([]uint64, depth)
		for j := range s {
			s[j] = 0x400000 + 16*(next()%5000) + 5
			if l.SlotSize == 8 && next()%5 == 0 {
				s[j] |= 0x7f00_0000_0000
			}
			if j > 0 && next()%97 == 0 {
				s[j] = next() % 2 // 0 or 1: the same once adjusted
			}
		}
		stacks[i] = s
	}
	for r := 0; r < 20000; r++ {
		s := int(next() % nStacks)
		if r < nStacks {
			s = r
		}
		f.rec(1+next()%3, stacks[s]...)
	}
	return f.trailer().text(mapsText).buf
}

// TestGoldenEncoding pins the exact profile Decode builds (samples, their
// order, locations, mappings) through its pprof encoding, so that changes
// for speed cannot change the output. The digests were taken before the
// decoder was tuned; update them only for an intended change of output.
func TestGoldenEncoding(t *testing.T) {
	inputs := map[string][]byte{}
	for _, fx := range fixtures {
		inputs[fx.file] = readFixture(t, fx.file)
	}
	for _, l := range layouts {
		inputs["synthetic-"+l.String()] = goldenFile(l)
	}
	for name, data := range inputs {
		p, _, err := Decode(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out bytes.Buffer
		if err := pprof.Encode(&out, p, pprof.EncodeOptions{Raw: true}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sum := sha256.Sum256(out.Bytes())
		got := hex.EncodeToString(sum[:])
		if want := goldenDigests[name]; got != want {
			t.Errorf("%s: encoding digest %s, want %s", name, got, want)
		}
	}
}

var goldenDigests = map[string]string{
	"be32-100hz.prof":                "d713a8962b9729b04d70ffb4ec96704b92f647f758b3bf860b2a75402443bd11",
	"be64-100hz.prof":                "43eb2f95fd2e31dc6d26674be3560b2efc38e5a720ffc278b4497d971c3f52e1",
	"le32-100hz.prof":                "d713a8962b9729b04d70ffb4ec96704b92f647f758b3bf860b2a75402443bd11",
	"le64-1000hz-4t.prof":            "97035d6ebfd67b23ba0df0ae8d07fc89666c76b80ca1d216820cd235ffaff46f",
	"le64-100hz.prof":                "270452ad9b68733db8ca7dd69f65e72f97cba8256fbf299a846c3751ddd5770c",
	"le64-deleted.prof":              "6661d8d8acb370ced5aed5eab3ed19409536256321547d909d8404be82ddbce7",
	"le64-hot.prof":                  "b80f8bfe9365abd9d1fb246169ee18014cdb5f3795b668561114c4af825765b9",
	"le64-notrailer.prof":            "12d6fe986a05b6d5bf36cb8ca7be274f3b36226e87c81021ce2575f52cfe04e0",
	"synthetic-32-bit big-endian":    "91692a24cb60f43e1c449ce36c90a2b90f799d22326a549b30827ac79546dc1f",
	"synthetic-32-bit little-endian": "91692a24cb60f43e1c449ce36c90a2b90f799d22326a549b30827ac79546dc1f",
	"synthetic-64-bit big-endian":    "fca9c0e6ae7b7afa94b76ddcde4755d22dc75ee1f193b29e257073b677cc08b3",
	"synthetic-64-bit little-endian": "fca9c0e6ae7b7afa94b76ddcde4755d22dc75ee1f193b29e257073b677cc08b3",
}

// TestCompactKeysExact checks stacks whose PCs share, or do not share, their
// high 32 bits (stored compact or not in a 64-bit little-endian file): equal
// low halves under different high halves are different stacks.
func TestCompactKeysExact(t *testing.T) {
	stacks := [][]uint64{
		{0x1_0000_0010, 0x1_0000_0021},
		{0x2_0000_0010, 0x2_0000_0021},
		{0x1_0000_0010, 0x2_0000_0021},
		{0x2_0000_0010, 0x1_0000_0021},
		{0x10, 0x21},
		{0x10, 0x21, 0x31},
		{0x1_0000_0010},
		{0x10},
		{0xffff_ffff_0000_0010, 0xffff_ffff_0000_0021, 0xffff_ffff_ffff_ffff},
	}
	f := newFile(le64).header(10000)
	for _, s := range stacks {
		f.rec(1, s...)
	}
	for i := len(stacks) - 1; i >= 0; i-- {
		f.rec(2, stacks[i]...)
	}
	r := decode(t, f.trailer().buf, Options{})
	want := []string{
		"3@0x100000010,0x100000020",
		"3@0x200000010,0x200000020",
		"3@0x100000010,0x200000020",
		"3@0x200000010,0x100000020",
		"3@0x10,0x20",
		"3@0x10,0x20,0x30",
		"3@0x100000010",
		"3@0x10",
		"3@0xffffffff00000010,0xffffffff00000020,0xfffffffffffffffe",
	}
	if got := samples(r.p); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("samples\n got %q\nwant %q", got, want)
	}
}

// TestManyStacksThenBadRecord covers a profile large enough for the stacks
// to be resolved in a goroutine, ended by a bad record: the error is
// returned (the goroutine stopped), and salvage keeps exactly what the
// same records without the bad one give.
func TestManyStacksThenBadRecord(t *testing.T) {
	f := newFile(le64).header(10000)
	for i := uint64(0); i < 3*resolveBatch+7; i++ {
		f.rec(1+i%3, 0x400000+i, 0x500000+i%11, 0x7f00_0000_0000+i%5)
	}
	good := append([]byte(nil), f.buf...)
	bad := f.slots(1, 0).buf
	decodeErr(t, bad, Options{}, fmt.Sprintf("record %d at byte %d: num_pcs is 0", 3*resolveBatch+8, len(good)))
	encode := func(data []byte) []byte {
		p, _, err := Decode(bytes.NewReader(data), Options{Salvage: true, Warn: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := pprof.Encode(&out, p, pprof.EncodeOptions{Raw: true}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	if got, want := encode(bad), encode(good); !bytes.Equal(got, want) {
		t.Errorf("salvaged profile differs from the profile of the good records")
	}
	r := decode(t, bad, Options{Salvage: true})
	if len(r.p.Samples) != 3*resolveBatch+7 || !r.info.Salvaged {
		t.Errorf("%d samples, salvaged %v", len(r.p.Samples), r.info.Salvaged)
	}
}

// TestCountOverflowAcrossStacks checks the overflow of a stack's summed
// count when the sum of all records overflows long before: stacks equal
// once adjusted share their sum, and the record that overflows is the one
// reported.
func TestCountOverflowAcrossStacks(t *testing.T) {
	const period = math.MaxInt64 / 1000 / 100 // µs; about 100 samples fit
	m := uint64(math.MaxInt64 / (int64(period) * 1000))
	a, b, c := []uint64{0x10, 0x21}, []uint64{0x30}, []uint64{0x40, 0x51, 0x61}
	d1, d2 := []uint64{0x10, 0}, []uint64{0x10, 1} // equal once adjusted
	f := newFile(le64).header(period).
		rec(m/3, a...).rec(m/3, b...).rec(m/3, c...).
		rec(m/3, d1...). // the sum of all records now exceeds m
		rec(m/3, d2...).rec(m-2*(m/3), d1...)
	good := append([]byte(nil), f.buf...)
	f.rec(1, d2...)
	decodeErr(t, f.buf, Options{}, fmt.Sprintf("record 7 at byte %d", len(good)), "overflows int64")
	want := []string{
		fmt.Sprintf("%d@0x10,0x20", m/3),
		fmt.Sprintf("%d@0x30", m/3),
		fmt.Sprintf("%d@0x40,0x50,0x60", m/3),
		fmt.Sprintf("%d@0x10,0x0", m),
	}
	for _, data := range [][]byte{f.buf, good} {
		r := decode(t, data, Options{Salvage: true})
		if got := samples(r.p); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("samples\n got %q\nwant %q", got, want)
		}
	}
}
