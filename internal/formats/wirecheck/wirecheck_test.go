package wirecheck

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

var (
	devMD = (&devprofilespb.ProfilesData{}).ProtoReflect().Descriptor()
	expMD = (&profilespb.ProfilesData{}).ProtoReflect().Descriptor()
)

// drain reads all of r in small pieces (so that every field is cut across
// reads somewhere) and returns the error.
func drain(r io.Reader) error {
	buf := make([]byte, 7)
	for {
		_, err := r.Read(buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// fixture returns a real file of testdata, or for "exp:FILE" and
// "dev:FILE" the real pprof FILE written as OTLP binary of that dialect.
func fixture(t testing.TB, name string) []byte {
	dialect, file, conv := strings.Cut(name, ":")
	if !conv {
		file = name
	}
	b, err := os.ReadFile("../../../testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	if !conv {
		return b
	}
	p, err := pprof.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if dialect == "exp" {
		err = pprofextended.Encode(&buf, []*model.Profile{p}, pprofextended.EncodeOptions{})
	} else {
		err = otlp.Encode(&buf, []*model.Profile{p}, otlp.EncodeOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestProtoPassesRealFiles(t *testing.T) {
	for _, c := range []struct {
		file   string
		md     protoreflect.MessageDescriptor
		framed bool
	}{
		{"otlp-dev/cpu.otlp", devMD, false},
		{"dev:go/heap.pb.gz", devMD, false},
		{"exp:go/heap.pb.gz", expMD, false},
	} {
		data := fixture(t, c.file)
		if err := drain(NewProto(bytes.NewReader(data), int64(len(data)), "otlp", c.framed, c.md)); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
		// Framed: twice, each after its length.
		var framed []byte
		for i := 0; i < 2; i++ {
			framed = binary.BigEndian.AppendUint32(framed, uint32(len(data)))
			framed = append(framed, data...)
		}
		if c.md == devMD {
			if err := drain(NewProto(bytes.NewReader(framed), 0, "otlp", true, c.md)); err != nil {
				t.Errorf("%s framed: %v", c.file, err)
			}
		}
		// Both schemas at once take either dialect.
		if err := drain(NewProto(bytes.NewReader(data), 0, "otlp", false, expMD, devMD)); err != nil {
			t.Errorf("%s under both schemas: %v", c.file, err)
		}
	}
}

// A valid start then zeros fails at the first zero, whatever follows.
func TestProtoZerosAfterStart(t *testing.T) {
	data := fixture(t, "otlp-dev/cpu.otlp")
	cut := len(data) / 2
	// Cut inside the one resource_profiles: fill the rest with zeros.
	bad := append(append([]byte{}, data[:cut]...), make([]byte, len(data)-cut)...)
	err := drain(NewProto(bytes.NewReader(bad), 0, "otlp", false, devMD))
	if err == nil || !strings.Contains(err.Error(), "bad field tag") {
		t.Fatalf("err = %v, want a bad field tag", err)
	}
	// An endless stream of zeros behind a valid start: refused after
	// reading little.
	r := io.MultiReader(bytes.NewReader(data[:cut]), zeros{})
	n, err := io.Copy(io.Discard, NewProto(r, 0, "otlp", false, devMD))
	if err == nil || n > int64(len(data))+64<<10 {
		t.Fatalf("read %d bytes, err %v", n, err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestProtoLimit(t *testing.T) {
	// resource_profiles of 1 GiB declared, limit 1 MiB.
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, 1<<30)
	err := drain(NewProto(bytes.NewReader(b), 1<<20, "otlp", false, devMD))
	if err == nil || !strings.Contains(err.Error(), "past the limit of 1048576 bytes (--max-input-size)") {
		t.Fatalf("err = %v", err)
	}
	// A framed message past the limit.
	f := binary.BigEndian.AppendUint32(nil, 1<<23)
	err = drain(NewProto(bytes.NewReader(append(f, 0x0a, 0x00)), 1<<20, "otlp", true, devMD))
	if err == nil || !strings.Contains(err.Error(), "framed message of 8388608 bytes, past the limit") {
		t.Fatalf("framed: err = %v", err)
	}
	// A nested length past its message's end.
	inner := protowire.AppendTag(nil, 2, protowire.BytesType) // scope_profiles
	inner = protowire.AppendVarint(inner, 100)
	b = protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, inner)
	err = drain(NewProto(bytes.NewReader(b), 0, "otlp", false, devMD))
	if err == nil || !strings.Contains(err.Error(), "past the end of its message") {
		t.Fatalf("nested: err = %v", err)
	}
}

// What the checker refuses, proto.Unmarshal refuses too (under every
// schema given).
func checkAgreesWithProto(t *testing.T, data []byte) {
	err := drain(NewProto(bytes.NewReader(data), 0, "otlp", false, expMD, devMD))
	if err == nil {
		return
	}
	if proto.Unmarshal(data, &devprofilespb.ProfilesData{}) == nil || proto.Unmarshal(data, &profilespb.ProfilesData{}) == nil {
		t.Fatalf("checker: %v; proto.Unmarshal takes the data", err)
	}
}

func checkAgreesWithJSON(t *testing.T, data []byte) {
	err := drain(NewJSON(bytes.NewReader(data), "otlp json"))
	if err == nil {
		return
	}
	d := json.NewDecoder(bytes.NewReader(data))
	for {
		var v any
		jerr := d.Decode(&v)
		if errors.Is(jerr, io.EOF) {
			t.Fatalf("checker: %v; encoding/json takes %q", err, data)
		}
		if jerr != nil {
			return
		}
	}
}

func TestJSON(t *testing.T) {
	for _, ok := range []string{
		`{"a":[1,-2.5e+3,true,false,null,"x\"\\\u00e9"],"b":{}}`,
		"{\"resourceProfiles\":[]}\n{\"resourceProfiles\":[]}\n",
		` [ ] `, `"s"`, `{"k" : {"l":[[],{}]}}`,
	} {
		if err := drain(NewJSON(strings.NewReader(ok), "json")); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"{\"a\":1}\x00", `{"a" 1}`, `{1:2}`, `[1,]x`, `{"a":tru}`, "\"a\x01\"", `]`, `{"a":1]`, `"\x"`, `"\u12g4"`,
	} {
		err := drain(NewJSON(strings.NewReader(bad), "json"))
		if err == nil || !strings.HasPrefix(err.Error(), "json: byte ") {
			t.Errorf("%q: err = %v", bad, err)
		}
		checkAgreesWithJSON(t, []byte(bad))
	}
	data := fixture(t, "otlp-dev/cpu.otlp.json")
	if err := drain(NewJSON(bytes.NewReader(data), "json")); err != nil {
		t.Errorf("fixture: %v", err)
	}
}

// allocBound asserts that checking data allocated at most a fixed amount
// plus a multiple of its size (the schema's nodes, the stack).
func allocBound(t *testing.T, data []byte, fn func()) {
	if got, over := memcheck.Over(uint64(1<<20+16*len(data)), fn); over {
		t.Fatalf("allocated %d bytes for %d bytes of input, over %d", got, len(data), 1<<20+16*len(data))
	}
}

func FuzzProto(f *testing.F) {
	f.Add(fixture(f, "otlp-dev/cpu.otlp"))
	f.Add(fixture(f, "exp:go/heap.pb.gz"))
	f.Add(fixture(f, "otlp-dev/cpu.framed"))
	f.Add([]byte{0x0a, 0x02, 0x12, 0x05})
	f.Add([]byte{0x0b, 0x0c})
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00}) // a length of 2^64-1 (hung the checker once)
	f.Fuzz(func(t *testing.T, data []byte) {
		allocBound(t, data, func() { checkAgreesWithProto(t, data) })
		// Framed, as the collector writes: never panics, bounded.
		allocBound(t, data, func() { _ = drain(NewProto(bytes.NewReader(data), int64(len(data)), "otlp", true, devMD)) })
	})
}

func FuzzJSON(f *testing.F) {
	f.Add(fixture(f, "otlp-dev/cpu.otlp.json"))
	f.Add([]byte(`{"a":[1,"\u0041"]}` + "\n" + `{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		allocBound(t, data, func() { checkAgreesWithJSON(t, data) })
	})
}

// Mutations of real files (a byte changed, the file cut): the checker
// refuses only what proto.Unmarshal and encoding/json refuse too.
func TestAgreesOnMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"otlp-dev/cpu.otlp", "exp:go/heap.pb.gz", "otlp-dev/cpu.otlp.json"} {
		data := fixture(t, name)
		isJSON := strings.HasSuffix(name, ".json")
		refused := 0
		for i := 0; i < 1000; i++ {
			m := append([]byte{}, data...)
			switch i % 3 {
			case 0:
				m[rng.IntN(len(m))] = byte(rng.IntN(256))
			case 1:
				m = m[:rng.IntN(len(m))]
			case 2:
				at := rng.IntN(len(m))
				clear(m[at:min(len(m), at+rng.IntN(64))])
			}
			if isJSON {
				checkAgreesWithJSON(t, m)
				if drain(NewJSON(bytes.NewReader(m), "json")) != nil {
					refused++
				}
			} else {
				checkAgreesWithProto(t, m)
				if drain(NewProto(bytes.NewReader(m), 0, "otlp", false, expMD, devMD)) != nil {
					refused++
				}
			}
		}
		t.Logf("%s: %d of 1000 mutations refused by the checker", name, refused)
		if refused == 0 {
			t.Errorf("%s: the checker refused no mutation", name)
		}
	}
}
