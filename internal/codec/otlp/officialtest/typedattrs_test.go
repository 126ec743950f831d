package officialtest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

var update = flag.Bool("update", false, "rewrite testdata/otlp-dev/typed-attrs.otlp with the collector's pdata")

// typedAttrsFile is the fixture TestTypedAttrsFixture builds with pdata.
func typedAttrsFile() string {
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	return filepath.Join(root, "testdata", "otlp-dev", "typed-attrs.otlp")
}

// buildTypedAttrs reads the pdata-written cpu.otlp (a real Go CPU profile)
// with the collector's pdata and gives it, through pdata's own API,
// attributes of every value type, with and without units: on samples
// (bool, double, bytes, arrays, maps, empty values, the empty string, a
// string with a unit, integers and integer arrays with units), on the
// profile, its mappings and its locations (with units), and on the
// resource and the scope. Each sample gets one of several such sets, by
// its index.
func buildTypedAttrs(t *testing.T) []byte {
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	ps, err := (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(read(t, filepath.Join(root, "testdata", "otlp-dev", "cpu.otlp")))
	if err != nil {
		t.Fatal(err)
	}
	d := ps.Dictionary()
	str := func(s string) int32 {
		i, err := pprofile.SetString(d.StringTable(), s)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	attr := func(key, unit string, set func(v pcommon.Value)) int32 {
		kv := pprofile.NewKeyValueAndUnit()
		kv.SetKeyStrindex(str(key))
		if unit != "" {
			kv.SetUnitStrindex(str(unit))
		}
		set(kv.Value())
		i, err := pprofile.SetAttribute(d.AttributeTable(), kv)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	mapValue := func(v pcommon.Value) {
		m := v.SetEmptyMap()
		m.PutStr("k", "v")
		m.PutInt("n", 3)
		m.PutEmptyMap("nested").PutDouble("d", 2.5)
		m.PutEmptyBytes("b").FromRaw([]byte{0, 0xff})
		m.PutEmpty("none")
	}
	sampleSets := [][]int32{
		{
			attr("attr.bool", "", func(v pcommon.Value) { v.SetBool(true) }),
			attr("attr.double", "s", func(v pcommon.Value) { v.SetDouble(0.25) }),
			attr("attr.bytes", "", func(v pcommon.Value) { v.SetEmptyBytes().FromRaw([]byte{0, 1, 2, 0xff}) }),
		},
		{
			attr("attr.bool", "", func(v pcommon.Value) { v.SetBool(false) }),
			attr("attr.map", "", mapValue),
			attr("attr.empty", "", func(pcommon.Value) {}),
			attr("attr.empty_string", "", func(v pcommon.Value) { v.SetStr("") }),
		},
		{
			attr("attr.mixed_array", "", func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetStr("a")
				s.AppendEmpty().SetInt(1)
				s.AppendEmpty().SetBool(true)
				s.AppendEmpty().SetDouble(-0.5)
			}),
			attr("attr.one_element_array", "", func(v pcommon.Value) { v.SetEmptySlice().AppendEmpty().SetStr("x") }),
			attr("attr.empty_array", "", func(v pcommon.Value) { v.SetEmptySlice() }),
			attr("attr.string_with_unit", "By", func(v pcommon.Value) { v.SetStr("big") }),
		},
		{
			attr("attr.int", "By", func(v pcommon.Value) { v.SetInt(4096) }),
			attr("attr.int_array", "ms", func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetInt(1)
				s.AppendEmpty().SetInt(2)
			}),
			attr("attr.string_array", "", func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetStr("p")
				s.AppendEmpty().SetStr("q")
			}),
			attr("attr.double_array", "", func(v pcommon.Value) {
				s := v.SetEmptySlice()
				s.AppendEmpty().SetDouble(1)
				s.AppendEmpty().SetDouble(2)
			}),
		},
		{}, // the sample's own labels only
	}
	profAttrs := []int32{
		attr("attr.profile.sampling_rate", "Hz", func(v pcommon.Value) { v.SetDouble(100) }),
		attr("attr.profile.note", "", func(v pcommon.Value) { v.SetStr("typed attributes") }),
		attr("attr.profile.flag", "", func(v pcommon.Value) { v.SetBool(true) }),
	}
	mapAttr := attr("attr.mapping.size", "By", func(v pcommon.Value) { v.SetInt(1 << 20) })
	locAttrs := []int32{
		attr("profile.frame.type", "", func(v pcommon.Value) { v.SetStr("go") }),
		attr("attr.location.weight", "1", func(v pcommon.Value) { v.SetDouble(0.5) }),
	}

	mt := d.MappingTable()
	for i := 1; i < mt.Len(); i++ {
		mt.At(i).AttributeIndices().Append(mapAttr)
	}
	lt := d.LocationTable()
	for i := 1; i < lt.Len(); i++ {
		lt.At(i).AttributeIndices().Append(locAttrs[0])
		if i%2 == 0 {
			lt.At(i).AttributeIndices().Append(locAttrs[1])
		}
	}
	rp := ps.ResourceProfiles().At(0)
	ra := rp.Resource().Attributes()
	ra.PutBool("attr.resource.bool", true)
	ra.PutDouble("attr.resource.double", 1.5)
	ra.PutEmptySlice("attr.resource.array").AppendEmpty().SetInt(7)
	sp := rp.ScopeProfiles().At(0)
	sp.Scope().SetVersion("v0.164.0")
	sa := sp.Scope().Attributes()
	sa.PutStr("attr.scope.str", "s")
	sa.PutEmptyBytes("attr.scope.bytes").FromRaw([]byte{9})
	mapValue(sa.PutEmpty("attr.scope.map"))
	for k := 0; k < sp.Profiles().Len(); k++ {
		pr := sp.Profiles().At(k)
		pr.AttributeIndices().Append(profAttrs...)
		ss := pr.Samples()
		for i := 0; i < ss.Len(); i++ {
			ss.At(i).AttributeIndices().Append(sampleSets[i%len(sampleSets)]...)
		}
	}
	bin, err := (&pprofile.ProtoMarshaler{}).MarshalProfiles(ps)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestTypedAttrsFixture: the committed fixture is what buildTypedAttrs
// writes with pdata (-update rewrites it).
func TestTypedAttrsFixture(t *testing.T) {
	bin := buildTypedAttrs(t)
	if *update {
		if err := os.WriteFile(typedAttrsFile(), bin, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(read(t, typedAttrsFile()), bin) {
		t.Fatal("testdata/otlp-dev/typed-attrs.otlp is not what pdata writes; run go test -run TestTypedAttrsFixture -update")
	}
}

// TestTypedAttrsSurvive: pprofx's OTLP (binary and JSON) of the typed
// attributes fixture, and its OTLP after a bundle, is, as pdata reads it,
// the source: every resource, scope, profile, mapping, location and sample
// attribute with its value type and unit, and everything around them.
func TestTypedAttrsSurvive(t *testing.T) {
	src := typedAttrsFile()
	want := dumpProfiles(t, read(t, src), false)
	if !strings.Contains(want, "attr.map") || !strings.Contains(want, `unit "Hz"`) {
		t.Fatalf("the fixture lacks its attributes:\n%s", want)
	}
	run := func(args ...string) {
		t.Helper()
		if b, err := exec.Command(pprofx, args...).CombinedOutput(); err != nil || len(b) > 0 {
			t.Fatalf("pprofx %v: %v\n%s", args, err, b)
		}
	}
	bundle := filepath.Join(dir, "typed.ppxb")
	run("merge", src, "-o", bundle)
	for _, c := range []struct {
		name, from, out string
		json            bool
	}{
		{"otlp", src, "typed.otlp", false},
		{"otlp-json", src, "typed.otlp.json", true},
		{"bundle -> otlp", bundle, "typed-bundle.otlp", false},
		{"bundle -> otlp-json", bundle, "typed-bundle.otlp.json", true},
	} {
		out := filepath.Join(dir, c.out)
		run("convert", c.from, "-o", out)
		got := dumpProfiles(t, read(t, out), c.json)
		if got != want {
			t.Errorf("%s: %s", c.name, firstDiff(want, got))
		}
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range w {
		if i >= len(g) || w[i] != g[i] {
			gl := "(end)"
			if i < len(g) {
				gl = g[i]
			}
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, gl, w[i])
		}
	}
	return fmt.Sprintf("%d more lines", len(g)-len(w))
}

// dumpProfiles writes what pdata reads of a message with every index
// resolved: resources, scopes, profiles and their samples, each stack's
// locations with their mappings, lines and functions, and every attribute
// as key, value type, value and unit. A sample's attributes are a set
// (profiles.proto identifies a sample by their set): sorted by key.
func dumpProfiles(t *testing.T, data []byte, json bool) string {
	t.Helper()
	var ps pprofile.Profiles
	var err error
	if json {
		ps, err = (&pprofile.JSONUnmarshaler{}).UnmarshalProfiles(data)
	} else {
		ps, err = (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(data)
	}
	if err != nil {
		t.Fatal(err)
	}
	d := ps.Dictionary()
	st := d.StringTable()
	s := func(i int32) string { return st.At(int(i)) }
	var b strings.Builder
	attrs := func(idx pcommon.Int32Slice, sorted bool) string {
		var out []string
		for _, a := range idx.All() {
			kv := d.AttributeTable().At(int(a))
			out = append(out, fmt.Sprintf("%s=%s unit %q", s(kv.KeyStrindex()), value(kv.Value()), s(kv.UnitStrindex())))
		}
		if sorted {
			sort.Strings(out)
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	vt := func(v pprofile.ValueType) string { return s(v.TypeStrindex()) + "/" + s(v.UnitStrindex()) }
	loc := func(i int32) string {
		l := d.LocationTable().At(int(i))
		out := fmt.Sprintf("%#x attrs=%s", l.Address(), attrs(l.AttributeIndices(), true))
		if mi := l.MappingIndex(); mi > 0 {
			m := d.MappingTable().At(int(mi))
			out += fmt.Sprintf(" mapping=%#x-%#x@%#x %q attrs=%s", m.MemoryStart(), m.MemoryLimit(), m.FileOffset(), s(m.FilenameStrindex()), attrs(m.AttributeIndices(), true))
		}
		for _, ln := range l.Lines().All() {
			f := d.FunctionTable().At(int(ln.FunctionIndex()))
			out += fmt.Sprintf(" {%q %q %q %d %d %d}", s(f.NameStrindex()), s(f.SystemNameStrindex()), s(f.FilenameStrindex()), f.StartLine(), ln.Line(), ln.Column())
		}
		return out
	}
	for _, rp := range ps.ResourceProfiles().All() {
		fmt.Fprintf(&b, "resource %s schema %q dropped %d\n", mapText(rp.Resource().Attributes()), rp.SchemaUrl(), rp.Resource().DroppedAttributesCount())
		for _, sp := range rp.ScopeProfiles().All() {
			sc := sp.Scope()
			fmt.Fprintf(&b, "scope %q %q %s schema %q dropped %d\n", sc.Name(), sc.Version(), mapText(sc.Attributes()), sp.SchemaUrl(), sc.DroppedAttributesCount())
			for _, pr := range sp.Profiles().All() {
				fmt.Fprintf(&b, "profile %s period %s %d time %d duration %d id %x dropped %d attrs=%s\n", vt(pr.SampleType()), vt(pr.PeriodType()), pr.Period(),
					pr.Time().AsTime().UnixNano(), pr.DurationNano(), pr.ProfileID(), pr.DroppedAttributesCount(), attrs(pr.AttributeIndices(), true))
				for _, smp := range pr.Samples().All() {
					fmt.Fprintf(&b, "sample %v ts %v link %d attrs=%s\n", smp.Values().AsRaw(), smp.TimestampsUnixNano().AsRaw(), smp.LinkIndex(), attrs(smp.AttributeIndices(), true))
					for _, li := range d.StackTable().At(int(smp.StackIndex())).LocationIndices().All() {
						fmt.Fprintf(&b, "  %s\n", loc(li))
					}
				}
			}
		}
	}
	return b.String()
}

// value writes a pcommon.Value with its type, recursively.
func value(v pcommon.Value) string {
	switch v.Type() {
	case pcommon.ValueTypeSlice:
		var out []string
		for _, e := range v.Slice().All() {
			out = append(out, value(e))
		}
		return "Slice[" + strings.Join(out, " ") + "]"
	case pcommon.ValueTypeMap:
		return mapText(v.Map())
	case pcommon.ValueTypeBytes:
		return fmt.Sprintf("Bytes(%x)", v.Bytes().AsRaw())
	case pcommon.ValueTypeDouble:
		return fmt.Sprintf("Double(%v)", v.Double())
	}
	return fmt.Sprintf("%s(%q)", v.Type(), v.AsString())
}

func mapText(m pcommon.Map) string {
	var out []string
	for k, v := range m.All() {
		out = append(out, k+":"+value(v))
	}
	return "Map{" + strings.Join(out, " ") + "}"
}
