package officialtest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pprofile"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	dev "go.opentelemetry.io/proto/otlp/profiles/v1development"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

var (
	dir      string // scratch directory
	pprofx   string // the pprofx binary
	fixtures []string
)

// TestMain builds pprofx and converts every fixture with it: NAME.otlp,
// NAME.otlp.json, and for a non-pprof input NAME.src.pb.gz (pprofx's pprof
// of it, the reference).
func TestMain(m *testing.M) {
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	fixtures, _ = filepath.Glob(filepath.Join(root, "testdata", "go", "*.pb.gz"))
	tool, _ := filepath.Glob(filepath.Join(root, "testdata", "pprof", "*.pb.gz"))
	gperf, _ := filepath.Glob(filepath.Join(root, "testdata", "gperftools", "*.prof"))
	fixtures = append(append(fixtures, tool...), gperf...)
	fixtures = append(fixtures, filepath.Join(root, "testdata", "otlp", "rich.pb.gz"))
	// Symbolized gperftools profiles: functions, files, lines,
	// inline frames and build ids from the fixture binaries, found through
	// PPROF_BINARY_PATH as pprof finds them.
	symbolized, _ := filepath.Glob(filepath.Join(root, "testdata", "symbolize", "*.prof"))
	fixtures = append(fixtures, symbolized...)
	binPath := "PPROF_BINARY_PATH=" + filepath.Join(root, "testdata", "symbolize", "bin")
	var err error
	if dir, err = os.MkdirTemp("", "pprofx-devofficial"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		pprofx = filepath.Join(dir, "pprofx")
		build := exec.Command("go", "build", "-o", pprofx, "./cmd/pprofx")
		build.Dir = root // in pprofx's own module, with its own go.sum
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build pprofx: %v\n%s", err, out)
			return 1
		}
		// A generated profile whose message is written as it is
		// encoded (16 MiB and more): pieces of its dictionary, JSON
		// too, read by the official bindings and pdata.
		large := filepath.Join(dir, "generated-large.pb.gz")
		if err := writeLarge(large); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fixtures = append(fixtures, large)
		for _, f := range fixtures {
			base := filepath.Join(dir, name(f))
			outs := []string{base + ".otlp", base + ".otlp.json"}
			if strings.HasSuffix(f, ".prof") {
				outs = append(outs, base+".src.pb.gz")
			}
			for _, o := range outs {
				// (le64-deleted.prof is read with a warning, as it should be.)
				cmd := exec.Command(pprofx, "convert", f, "-o", o)
				cmd.Env = append(os.Environ(), binPath)
				if out, err := cmd.CombinedOutput(); err != nil {
					fmt.Fprintf(os.Stderr, "pprofx convert %s -o %s: %v\n%s", f, o, err, out)
					return 1
				}
			}
		}
		if st, err := os.Stat(filepath.Join(dir, name(large)+".otlp")); err != nil || st.Size() < 16<<20 {
			fmt.Fprintf(os.Stderr, "%s: the OTLP of the generated profile is not 16 MiB or more (%v): its dictionary is not written as it is encoded\n", large, err)
			return 1
		}
		return m.Run()
	}()
	os.RemoveAll(dir)
	os.Exit(code)
}

// writeLarge writes to path a generated pprof of 3,000 distinct stacks 20
// to 60 deep over 2,000 functions and a comment of 16 MiB: an OTLP
// message over 16 MiB, many pieces of tables and one entry larger than
// a piece, read quickly.
func writeLarge(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	p := synth.Pprof(3000, 2000, 20, 60, 3000)
	p.Comments = []string{strings.Repeat("a comment of 16 MiB. ", 16<<20/21+1)}
	if err := p.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func name(f string) string {
	return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".pb.gz"), ".prof")
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// source returns the profile a fixture holds, as google/pprof reads it.
func source(t *testing.T, f string) *profile.Profile {
	t.Helper()
	ref := f
	if strings.HasSuffix(f, ".prof") {
		ref = filepath.Join(dir, name(f)+".src.pb.gz")
	}
	p, err := profile.ParseData(read(t, ref))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// noUnknown fails for any unknown field anywhere in m: a field the official
// schema does not have.
func noUnknown(t *testing.T, m protoreflect.Message, path string) {
	t.Helper()
	if u := m.GetUnknown(); len(u) > 0 {
		t.Errorf("%s: %d bytes of unknown fields", path, len(u))
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		switch {
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				noUnknown(t, v.List().Get(i).Message(), fmt.Sprintf("%s.%s[%d]", path, fd.Name(), i))
			}
		case fd.IsMap():
		default:
			noUnknown(t, v.Message(), path+"."+string(fd.Name()))
		}
		return true
	})
}

// officialBinary reads pprofx's binary output with the official bindings.
func officialBinary(t *testing.T, f string) *dev.ProfilesData {
	t.Helper()
	pd := &dev.ProfilesData{}
	if err := proto.Unmarshal(read(t, filepath.Join(dir, name(f)+".otlp")), pd); err != nil {
		t.Fatal(err)
	}
	return pd
}

// TestOfficialBinary: the official bindings read pprofx's binary output
// with no unknown fields, and it holds the source, sample by sample.
func TestOfficialBinary(t *testing.T) {
	for _, f := range fixtures {
		t.Run(name(f), func(t *testing.T) {
			pd := officialBinary(t, f)
			noUnknown(t, pd.ProtoReflect(), "ProfilesData")
			check(t, source(t, f), pd)
		})
	}
}

// TestOfficialJSON: protojson over the official bindings reads pprofx's
// OTLP JSON (once its hex ids, OTLP's one departure from protojson, are
// base64), with no unknown field, and it is the binary output's message.
func TestOfficialJSON(t *testing.T) {
	for _, f := range fixtures {
		t.Run(name(f), func(t *testing.T) {
			var tree any
			if err := json.Unmarshal(read(t, filepath.Join(dir, name(f)+".otlp.json")), &tree); err != nil {
				t.Fatal(err)
			}
			hexToBase64(t, tree)
			std, err := json.Marshal(tree)
			if err != nil {
				t.Fatal(err)
			}
			pd := &dev.ProfilesData{}
			if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(std, pd); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(pd, officialBinary(t, f)) {
				t.Error("JSON and binary outputs hold different messages")
			}
			check(t, source(t, f), pd)
		})
	}
}

func hexToBase64(t *testing.T, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "traceId" || k == "spanId" || k == "profileId") {
				b, err := hex.DecodeString(s)
				if err != nil {
					t.Fatalf("%s: %q is not hex", k, s)
				}
				x[k] = base64.StdEncoding.EncodeToString(b)
				continue
			}
			hexToBase64(t, e)
		}
	case []any:
		for _, e := range x {
			hexToBase64(t, e)
		}
	}
}

// TestPdata: the collector's pprofile unmarshalers read pprofx's binary and
// JSON output; what pdata's API gives is the source under google/pprof's
// reading (names, system names, files, lines, mappings with their flags
// and build ids, labels with units, comments, drop/keep frames, period,
// time, duration, default sample type); what its marshaler writes back
// is, read by the official bindings, the very message pprofx wrote.
func TestPdata(t *testing.T) {
	for _, f := range fixtures {
		t.Run(name(f), func(t *testing.T) {
			want := officialBinary(t, f)
			src := source(t, f)
			for _, in := range []struct {
				kind string
				un   pprofile.Unmarshaler
				file string
			}{{"proto", &pprofile.ProtoUnmarshaler{}, ".otlp"}, {"json", &pprofile.JSONUnmarshaler{}, ".otlp.json"}} {
				ps, err := in.un.UnmarshalProfiles(read(t, filepath.Join(dir, name(f)+in.file)))
				if err != nil {
					t.Fatalf("%s: %v", in.kind, err)
				}
				checkPdata(t, src, ps)
				// Everything else, as pdata's API gives it: the source
				// under google/pprof's reading, with no allowance.
				read, err := pdataToPprof(ps)
				if err != nil {
					t.Fatalf("%s: %v", in.kind, err)
				}
				if d := pprofcmp.Diff(src, read); d != "" {
					t.Errorf("%s: pdata reads another profile than the source:\n%s", in.kind, d)
				}
				back, err := (&pprofile.ProtoMarshaler{}).MarshalProfiles(ps)
				if err != nil {
					t.Fatal(err)
				}
				got := &dev.ProfilesData{}
				if err := proto.Unmarshal(back, got); err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(normalize(got), normalize(want)) {
					t.Errorf("%s: pdata's re-marshalled message differs from pprofx's", in.kind)
				}
			}
		})
	}
}

// normalize undoes what pdata changes without changing the meaning: an
// empty Resource or scope where none was written, an empty AnyValue in
// attribute_table[0], and resource and scope attributes turned into
// references to the string table (key_strindex, string_value_strindex,
// proto v1.10), whose strings it appends to the table.
func normalize(pd *dev.ProfilesData) *dev.ProfilesData {
	pd = proto.Clone(pd).(*dev.ProfilesData)
	strs := pd.GetDictionary().GetStringTable()
	maxRef := int32(-1)
	var resolve func(kvs []*common.KeyValue)
	var value func(v *common.AnyValue)
	value = func(v *common.AnyValue) {
		switch x := v.GetValue().(type) {
		case *common.AnyValue_StringValueStrindex:
			maxRef = max(maxRef, x.StringValueStrindex)
			v.Value = &common.AnyValue_StringValue{StringValue: strs[x.StringValueStrindex]}
		case *common.AnyValue_ArrayValue:
			for _, e := range x.ArrayValue.Values {
				value(e)
			}
		case *common.AnyValue_KvlistValue:
			resolve(x.KvlistValue.Values)
		}
	}
	resolve = func(kvs []*common.KeyValue) {
		for _, kv := range kvs {
			if kv.KeyStrindex != 0 {
				maxRef = max(maxRef, kv.KeyStrindex)
				kv.Key, kv.KeyStrindex = strs[kv.KeyStrindex], 0
			}
			value(kv.Value)
		}
	}
	for _, rp := range pd.ResourceProfiles {
		if rp.Resource != nil && proto.Size(rp.Resource) == 0 {
			rp.Resource = nil
		}
		resolve(rp.GetResource().GetAttributes())
		for _, sp := range rp.ScopeProfiles {
			if sp.Scope != nil && proto.Size(sp.Scope) == 0 {
				sp.Scope = nil
			}
			resolve(sp.GetScope().GetAttributes())
		}
	}
	if pd.Dictionary != nil && maxRef >= 0 {
		// Strings only the references used: the ones pdata appended.
		used := make([]bool, len(strs))
		d := pd.Dictionary
		mark := func(i int32) { used[i] = true }
		for _, m := range d.MappingTable {
			mark(m.FilenameStrindex)
		}
		for _, f := range d.FunctionTable {
			mark(f.NameStrindex)
			mark(f.SystemNameStrindex)
			mark(f.FilenameStrindex)
		}
		for _, a := range d.AttributeTable {
			mark(a.KeyStrindex)
			mark(a.UnitStrindex)
		}
		for _, rp := range pd.ResourceProfiles {
			for _, sp := range rp.ScopeProfiles {
				for _, pr := range sp.Profiles {
					mark(pr.GetSampleType().GetTypeStrindex())
					mark(pr.GetSampleType().GetUnitStrindex())
					mark(pr.GetPeriodType().GetTypeStrindex())
					mark(pr.GetPeriodType().GetUnitStrindex())
				}
			}
		}
		n := len(strs)
		for n > 1 && !used[n-1] {
			n--
		}
		d.StringTable = strs[:n]
	}
	for _, a := range pd.GetDictionary().GetAttributeTable() {
		if a.Value != nil && a.Value.Value == nil {
			a.Value = nil
		}
	}
	return pd
}

// checkPdata compares pdata's samples with the source's values.
func checkPdata(t *testing.T, src *profile.Profile, ps pprofile.Profiles) {
	t.Helper()
	if ps.ResourceProfiles().Len() != 1 || ps.ResourceProfiles().At(0).ScopeProfiles().Len() != 1 {
		t.Fatalf("pdata: %d resource profiles", ps.ResourceProfiles().Len())
	}
	sp := ps.ResourceProfiles().At(0).ScopeProfiles().At(0)
	order := make([]int, sp.Profiles().Len())
	for k := range order {
		order[k] = k
	}
	if v, ok := sp.Scope().Attributes().Get("pprof.scope.sample_type_order"); ok {
		for k := range order {
			order[k] = int(v.Slice().At(k).Int())
		}
	}
	if sp.Profiles().Len() != len(src.SampleType) {
		t.Fatalf("pdata: %d profiles for %d sample types", sp.Profiles().Len(), len(src.SampleType))
	}
	strs := ps.Dictionary().StringTable()
	for k := 0; k < sp.Profiles().Len(); k++ {
		pr := sp.Profiles().At(k)
		st := src.SampleType[order[k]]
		if got := strs.At(int(pr.SampleType().TypeStrindex())) + "/" + strs.At(int(pr.SampleType().UnitStrindex())); got != st.Type+"/"+st.Unit {
			t.Errorf("pdata profile %d: sample type %s, want %s/%s", k, got, st.Type, st.Unit)
		}
		if k == 0 && pr.Samples().Len() != len(src.Sample) {
			t.Fatalf("pdata profile %d: %d samples, want %d", k, pr.Samples().Len(), len(src.Sample))
		}
		// Later profiles may leave out samples whose value is 0 there
		// (pprofx's convention, README): the next sample either has the
		// key of profile 0's i-th or the i-th is 0 in this profile.
		first := sp.Profiles().At(0).Samples()
		j := 0
		for i := range src.Sample {
			want := src.Sample[i].Value[order[k]]
			if j == pr.Samples().Len() || !samePdataKey(first.At(i), pr.Samples().At(j)) {
				if want != 0 {
					t.Fatalf("pdata profile %d: sample %d of the source (value %d) missing", k, i, want)
				}
				continue
			}
			if v := pr.Samples().At(j).Values(); v.Len() != 1 || v.At(0) != want {
				t.Fatalf("pdata profile %d sample %d: values %v, want [%d]", k, j, v.AsRaw(), want)
			}
			j++
		}
		if j != pr.Samples().Len() {
			t.Fatalf("pdata profile %d: %d samples match none of the source", k, pr.Samples().Len()-j)
		}
	}
}

func samePdataKey(a, b pprofile.Sample) bool {
	return a.StackIndex() == b.StackIndex() && a.LinkIndex() == b.LinkIndex() &&
		fmt.Sprint(a.AttributeIndices().AsRaw()) == fmt.Sprint(b.AttributeIndices().AsRaw())
}

// TestCollectorFiles: files as the collector writes them from pprofx's
// data (pdata's ProtoMarshaler and JSONMarshaler; the fileexporter's JSON
// lines and 4-byte-length framing, plain and gzipped) are read by pprofx
// and convert to the pprof they came from.
func TestCollectorFiles(t *testing.T) {
	for _, f := range fixtures {
		t.Run(name(f), func(t *testing.T) {
			ps, err := (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(read(t, filepath.Join(dir, name(f)+".otlp")))
			if err != nil {
				t.Fatal(err)
			}
			bin, err := (&pprofile.ProtoMarshaler{}).MarshalProfiles(ps)
			if err != nil {
				t.Fatal(err)
			}
			js, err := (&pprofile.JSONMarshaler{}).MarshalProfiles(ps)
			if err != nil {
				t.Fatal(err)
			}
			framed := binary.BigEndian.AppendUint32(nil, uint32(len(bin)))
			framed = append(framed, bin...)
			src := source(t, f)
			for _, c := range []struct {
				ext  string
				data []byte
			}{{"pdata.otlp", bin}, {"pdata.otlp.json", js}, {"pdata.jsonl", append(append([]byte(nil), js...), '\n')}, {"pdata.framed", framed}} {
				path := filepath.Join(dir, name(f)+"."+c.ext)
				if err := os.WriteFile(path, c.data, 0o644); err != nil {
					t.Fatal(err)
				}
				out := path + ".pb.gz"
				var stderr bytes.Buffer
				cmd := exec.Command(pprofx, "convert", path, "-o", out)
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil || stderr.Len() > 0 {
					t.Fatalf("%s: pprofx convert: %v\n%s", c.ext, err, stderr.String())
				}
				got, err := profile.ParseData(read(t, out))
				if err != nil {
					t.Fatal(err)
				}
				if d := pprofcmp.Diff(src, got); d != "" {
					t.Errorf("%s: differs from the source:\n%s", c.ext, d)
				}
			}
		})
	}
}

// check converts the official message back to pprof by the semantic
// conventions (written here against the official bindings, independently
// of pprofx's reader) and compares it with the source, sample by sample.
func check(t *testing.T, src *profile.Profile, pd *dev.ProfilesData) {
	t.Helper()
	got, err := toPprof(pd)
	if err != nil {
		t.Fatal(err)
	}
	if d := pprofcmp.Diff(src, got); d != "" {
		t.Error(d)
	}
}

func toPprof(pd *dev.ProfilesData) (*profile.Profile, error) {
	d := pd.GetDictionary()
	if len(pd.ResourceProfiles) != 1 || len(pd.ResourceProfiles[0].ScopeProfiles) != 1 {
		return nil, fmt.Errorf("want one resource and one scope")
	}
	sp := pd.ResourceProfiles[0].ScopeProfiles[0]
	str := func(i int32) string { return d.StringTable[i] }
	p := &profile.Profile{}
	order := make([]int, len(sp.Profiles))
	for k := range order {
		order[k] = k
	}
	for _, kv := range sp.Scope.GetAttributes() {
		switch kv.Key {
		case "pprof.scope.sample_type_order":
			for k, v := range kv.Value.GetArrayValue().GetValues() {
				order[k] = int(v.GetIntValue())
			}
		case "pprof.scope.default_sample_type":
			p.DefaultSampleType = kv.Value.GetStringValue()
		}
	}
	attr := func(i int32) (string, *common.AnyValue, string) {
		a := d.AttributeTable[i]
		return str(a.KeyStrindex), a.Value, str(a.UnitStrindex)
	}
	for i, m := range d.MappingTable[1:] {
		pm := &profile.Mapping{ID: uint64(i + 1), Start: m.MemoryStart, Limit: m.MemoryLimit, Offset: m.FileOffset, File: str(m.FilenameStrindex)}
		for _, a := range m.AttributeIndices {
			k, v, _ := attr(a)
			if err := setMappingAttr(pm, k, v.GetStringValue, v.GetBoolValue); err != nil {
				return nil, err
			}
		}
		p.Mapping = append(p.Mapping, pm)
	}
	funcs := make([]*profile.Function, len(d.FunctionTable))
	for i, f := range d.FunctionTable[1:] {
		funcs[i+1] = &profile.Function{ID: uint64(i + 1), Name: str(f.NameStrindex), SystemName: str(f.SystemNameStrindex),
			Filename: str(f.FilenameStrindex), StartLine: f.StartLine}
		p.Function = append(p.Function, funcs[i+1])
	}
	locs := make([]*profile.Location, len(d.LocationTable))
	for i, l := range d.LocationTable[1:] {
		pl := &profile.Location{ID: uint64(i + 1), Address: l.Address}
		if l.MappingIndex > 0 {
			pl.Mapping = p.Mapping[l.MappingIndex-1]
		}
		for _, ln := range l.Lines {
			pl.Line = append(pl.Line, profile.Line{Function: funcs[ln.FunctionIndex], Line: ln.Line, Column: ln.Column})
		}
		for _, a := range l.AttributeIndices {
			if k, v, _ := attr(a); k == "pprof.location.is_folded" {
				pl.IsFolded = v.GetBoolValue()
			} else {
				return nil, fmt.Errorf("location attribute %q", k)
			}
		}
		locs[i+1] = pl
		p.Location = append(p.Location, pl)
	}
	first := sp.Profiles[0]
	p.SampleType = make([]*profile.ValueType, len(sp.Profiles))
	for k, pr := range sp.Profiles {
		p.SampleType[order[k]] = &profile.ValueType{Type: str(pr.SampleType.TypeStrindex), Unit: str(pr.SampleType.UnitStrindex)}
		if len(pr.Samples) > len(first.Samples) {
			return nil, fmt.Errorf("profile %d: %d samples, profile 0 has %d", k, len(pr.Samples), len(first.Samples))
		}
	}
	if pt := first.PeriodType; pt != nil {
		p.PeriodType = &profile.ValueType{Type: str(pt.TypeStrindex), Unit: str(pt.UnitStrindex)}
	}
	p.Period, p.TimeNanos, p.DurationNanos = first.Period, int64(first.TimeUnixNano), int64(first.DurationNano)
	for _, a := range first.AttributeIndices {
		k, v, _ := attr(a)
		switch k {
		case "pprof.profile.comment":
			for _, c := range v.GetArrayValue().GetValues() {
				p.Comments = append(p.Comments, c.GetStringValue())
			}
		case "pprof.profile.drop_frames":
			p.DropFrames = v.GetStringValue()
		case "pprof.profile.keep_frames":
			p.KeepFrames = v.GetStringValue()
		case "pprof.profile.doc_url":
			p.DocURL = v.GetStringValue()
		}
	}
	// The profiles line up by sample key, in one order; pprofx's convention
	// (README): a later profile leaves out samples whose value is 0 and
	// whose key is the only one of its kind, so its next sample either
	// matches this sample of profile 0 or this one is 0 there.
	next := make([]int, len(sp.Profiles))
	for i, s := range first.Samples {
		ps := &profile.Sample{Value: make([]int64, len(sp.Profiles))}
		for k, pr := range sp.Profiles {
			if next[k] == len(pr.Samples) {
				continue
			}
			o := pr.Samples[next[k]]
			if o.StackIndex != s.StackIndex || fmt.Sprint(o.AttributeIndices) != fmt.Sprint(s.AttributeIndices) || o.LinkIndex != s.LinkIndex {
				if k == 0 {
					return nil, fmt.Errorf("profile 0 sample %d", i)
				}
				continue
			}
			next[k]++
			if len(o.Values) != 1 {
				return nil, fmt.Errorf("profile %d sample %d: %d values", k, i, len(o.Values))
			}
			ps.Value[order[k]] = o.Values[0]
		}
		for _, x := range d.StackTable[s.StackIndex].LocationIndices {
			ps.Location = append(ps.Location, locs[x])
		}
		for _, a := range s.AttributeIndices {
			k, v, unit := attr(a)
			k = labelKey(k)
			vals := []*common.AnyValue{v}
			if arr := v.GetArrayValue(); arr != nil {
				vals = arr.Values
			}
			for _, e := range vals {
				switch e.Value.(type) {
				case *common.AnyValue_StringValue:
					if ps.Label == nil {
						ps.Label = map[string][]string{}
					}
					ps.Label[k] = append(ps.Label[k], e.GetStringValue())
				case *common.AnyValue_IntValue:
					if ps.NumLabel == nil {
						ps.NumLabel, ps.NumUnit = map[string][]int64{}, map[string][]string{}
					}
					ps.NumLabel[k] = append(ps.NumLabel[k], e.GetIntValue())
					ps.NumUnit[k] = append(ps.NumUnit[k], unit)
				default:
					return nil, fmt.Errorf("sample attribute %q of kind %T", k, e.Value)
				}
			}
		}
		p.Sample = append(p.Sample, ps)
	}
	for k, pr := range sp.Profiles {
		if next[k] != len(pr.Samples) {
			return nil, fmt.Errorf("profile %d: %d of its %d samples match none of profile 0", k, len(pr.Samples)-next[k], len(pr.Samples))
		}
	}
	// As google/pprof reads a profile: a numeric label without units has
	// no NumUnit entry at all.
	for _, s := range p.Sample {
		for k, us := range s.NumUnit {
			if strings.Join(us, "") == "" {
				delete(s.NumUnit, k)
			}
		}
		if len(s.NumUnit) == 0 {
			s.NumUnit = nil
		}
	}
	return p, p.CheckValid()
}

// labelKey is the pprof label key of a sample attribute key: the semantic
// conventions' thread.name and thread.id are the labels thread and
// thread_id (docs/otlp.md, "The thread's keys"; no fixture here has both
// keys, which the rule keeps apart).
func labelKey(k string) string {
	switch k {
	case "thread.name":
		return "thread"
	case "thread.id":
		return "thread_id"
	}
	return k
}

// setMappingAttr sets the field of pm that mapping attribute k holds, as
// the semantic conventions and pprof's mapping flags name them; str and
// b read its value (one reader's binding or the other's).
func setMappingAttr(pm *profile.Mapping, k string, str func() string, b func() bool) error {
	switch k {
	case "process.executable.build_id.gnu":
		pm.BuildID = str()
	case "pprof.mapping.has_functions":
		pm.HasFunctions = b()
	case "pprof.mapping.has_filenames":
		pm.HasFilenames = b()
	case "pprof.mapping.has_line_numbers":
		pm.HasLineNumbers = b()
	case "pprof.mapping.has_inline_frames":
		pm.HasInlineFrames = b()
	default:
		return fmt.Errorf("mapping attribute %q", k)
	}
	return nil
}
