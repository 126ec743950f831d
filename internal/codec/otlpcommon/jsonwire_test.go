package otlpcommon_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	devpb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/otlpcommon"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	oldpb "github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// reference is the JSON of data read as protobuf-go reads it, into the
// generated structs, and written from them.
func reference(data []byte, m proto.Message) ([]byte, error) {
	if err := proto.Unmarshal(data, m); err != nil {
		return nil, err
	}
	return otlpcommon.AppendJSON(nil, m.ProtoReflect()), nil
}

// encodings are the binary encodings pprofx writes of the profiles in
// testdata: v1development and pprofextended.
func encodings(t testing.TB) (dev, old [][]byte) {
	t.Helper()
	var files []string
	for _, g := range []string{"go/*.pb.gz", "pprof/*.pb.gz", "pprof/*.pb", "otlp-dev/*.otlp", "otlp/*.pb.gz"} {
		m, _ := filepath.Glob(filepath.Join("../../../testdata", g))
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("only %d profiles in testdata", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ps []*model.Profile
		if strings.Contains(f, "otlp") {
			if strings.Contains(f, "otlp-dev") {
				ps, err = otlp.Decode(data, otlp.DecodeOptions{})
			} else {
				ps, err = pprofextended.Decode(data, pprofextended.DecodeOptions{})
			}
		} else {
			var p *model.Profile
			p, err = pprof.Decode(data)
			ps = []*model.Profile{p}
		}
		if err != nil {
			continue // not every file there is valid input
		}
		b, err := otlp.AppendProto(nil, ps, otlp.EncodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		dev = append(dev, b)
		var buf bytes.Buffer
		if err := pprofextended.Encode(&buf, ps, pprofextended.EncodeOptions{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		old = append(old, buf.Bytes())
	}
	return dev, old
}

func TestWireJSONIsTheStructsJSON(t *testing.T) {
	dev, old := encodings(t)
	check := func(data []byte, m proto.Message) {
		t.Helper()
		want, err := reference(data, m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := otlpcommon.BinaryToJSON(nil, data, m.ProtoReflect().Descriptor(), "otlp json")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: JSON differs from the structs' at byte %d", len(data), firstDiff(got, want))
		}
		var w bytes.Buffer
		if err := otlpcommon.WriteJSON(&w, data, m.ProtoReflect().Descriptor(), "otlp json"); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w.Bytes(), append(want, '\n')) {
			t.Fatalf("WriteJSON differs from BinaryToJSON")
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, data := range dev {
		check(data, &devpb.ProfilesData{})
		// The same message written otherwise: fields in another order
		// (a repeated field's values in theirs), repeated scalars not
		// packed, unknown fields, zeros and overridden singular values.
		for range 3 {
			check(rewrite(data, (&devpb.ProfilesData{}).ProtoReflect().Descriptor(), rng), &devpb.ProfilesData{})
		}
		check(old[i], &oldpb.ProfilesData{})
		check(rewrite(old[i], (&oldpb.ProfilesData{}).ProtoReflect().Descriptor(), rng), &oldpb.ProfilesData{})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// rewrite returns another encoding of the message md in data, which
// protobuf reads as the same message.
func rewrite(data []byte, md protoreflect.MessageDescriptor, rng *rand.Rand) []byte {
	type field struct {
		num protowire.Number
		b   []byte // tag and value
	}
	var fields []field
	for off := 0; off < len(data); {
		num, typ, n := protowire.ConsumeTag(data[off:])
		m := protowire.ConsumeFieldValue(num, typ, data[off+n:])
		v := data[off+n : off+n+m]
		off += n + m
		fd := md.Fields().ByNumber(num)
		switch {
		case fd != nil && fd.Kind() == protoreflect.MessageKind:
			inner, _ := protowire.ConsumeBytes(v)
			b := protowire.AppendTag(nil, num, typ)
			fields = append(fields, field{num, protowire.AppendBytes(b, rewrite(inner, fd.Message(), rng))})
		case fd != nil && fd.IsList() && typ == protowire.BytesType && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind:
			// Packed: each value on its own.
			packed, _ := protowire.ConsumeBytes(v)
			wt := protowire.VarintType
			switch fd.Kind() {
			case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
				wt = protowire.Fixed32Type
			case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
				wt = protowire.Fixed64Type
			}
			for len(packed) > 0 {
				k := protowire.ConsumeFieldValue(num, wt, packed)
				fields = append(fields, field{num, append(protowire.AppendTag(nil, num, wt), packed[:k]...)})
				packed = packed[k:]
			}
		case fd != nil && !fd.IsList() && !fd.HasPresence() && typ == protowire.VarintType && rng.IntN(2) == 0:
			// A singular value is the last one given: a zero first.
			fields = append(fields, field{num, protowire.AppendVarint(protowire.AppendTag(nil, num, typ), 0)})
			fields = append(fields, field{num, append(protowire.AppendTag(nil, num, typ), v...)})
		default:
			fields = append(fields, field{num, append(protowire.AppendTag(nil, num, typ), v...)})
		}
	}
	// An unknown field.
	fields = append(fields, field{9999, protowire.AppendString(protowire.AppendTag(nil, 9999, protowire.BytesType), "unknown")})
	// Riffle: any order that keeps each field's values in theirs.
	byNum := map[protowire.Number][]field{}
	var nums []protowire.Number
	for _, f := range fields {
		if _, ok := byNum[f.num]; !ok {
			nums = append(nums, f.num)
		}
		byNum[f.num] = append(byNum[f.num], f)
	}
	var out []byte
	for len(nums) > 0 {
		i := rng.IntN(len(nums))
		q := byNum[nums[i]]
		out = append(out, q[0].b...)
		if byNum[nums[i]] = q[1:]; len(q) == 1 {
			nums = append(nums[:i], nums[i+1:]...)
		}
	}
	return out
}

// Messages pprofx's writers do not write are refused, not misread.
func TestWireJSONRefuses(t *testing.T) {
	md := (&devpb.ProfilesData{}).ProtoReflect().Descriptor()
	dict := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), nil)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"a singular message twice", append(append([]byte{}, dict...), dict...), "given twice"},
		{"a bad length", []byte{0x12, 0x05, 0x00}, "unexpected EOF"},
		{"a known field of another wire type", protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 1), "wire type"},
	} {
		_, err := otlpcommon.BinaryToJSON(nil, c.data, md, "otlp json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
		if err := otlpcommon.WriteJSON(&bytes.Buffer{}, c.data, md, "otlp json"); err == nil {
			t.Errorf("%s: WriteJSON took it", c.name)
		}
	}
}

// FuzzWireJSON checks that whatever the writer takes, protobuf reads as
// the message whose JSON it wrote.
func FuzzWireJSON(f *testing.F) {
	dev, old := encodings(f)
	for _, d := range dev {
		if len(d) < 16<<10 {
			f.Add(d, false)
		}
	}
	for _, d := range old {
		if len(d) < 16<<10 {
			f.Add(d, true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, pprofext bool) {
		var m proto.Message = &devpb.ProfilesData{}
		if pprofext {
			m = &oldpb.ProfilesData{}
		}
		got, err := otlpcommon.BinaryToJSON(nil, data, m.ProtoReflect().Descriptor(), "otlp json")
		if err != nil {
			return
		}
		want, err := reference(data, m)
		if err != nil {
			t.Fatalf("the writer took what protobuf refuses: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("JSON differs from the structs' at byte %d:\n%s\n%s", firstDiff(got, want), got, want)
		}
	})
}

// BenchmarkJSON writes the OTLP JSON of pprofx's encodings of the Go
// runtime's CPU profile and of one sample of 1M location ids, from the
// wire bytes ("wire") and through the generated structs it replaced
// ("structs": proto.Unmarshal, then the same text writer over them):
//
//	go test -run '^$' -bench JSON -benchmem -count 6 ./internal/codec/otlpcommon | benchstat -col /impl -
func BenchmarkJSON(b *testing.B) {
	for _, c := range benchProfiles(b) {
		data, err := otlp.AppendProto(nil, []*model.Profile{c.p}, otlp.EncodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		md := (&devpb.ProfilesData{}).ProtoReflect().Descriptor()
		b.Run("profile="+c.name+"/impl=wire", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var out []byte
			for b.Loop() {
				if out, err = otlpcommon.BinaryToJSON(out[:0], data, md, "otlp json"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("profile="+c.name+"/impl=structs", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var out []byte
			for b.Loop() {
				pd := &devpb.ProfilesData{}
				if err := proto.Unmarshal(data, pd); err != nil {
					b.Fatal(err)
				}
				out = otlpcommon.AppendJSON(out[:0], pd.ProtoReflect())
			}
		})
	}
}

type benchProfile struct {
	name string
	p    *model.Profile
}

// benchProfiles are the JSON benchmarks' profiles: the Go runtime's CPU
// profile, and one sample of 1M location ids.
func benchProfiles(b *testing.B) []benchProfile {
	cpu, err := os.ReadFile("../../../testdata/go/cpu.pb.gz")
	if err != nil {
		b.Fatal(err)
	}
	p, err := pprof.Decode(cpu)
	if err != nil {
		b.Fatal(err)
	}
	return []benchProfile{{"cpu", p}, {"deep", synth.DeepStack(1 << 20)}}
}
