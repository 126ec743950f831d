package model

import (
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// A profile may hold millions of locations, functions, lines and samples: their
// structs take no padding they could do without (on 64-bit platforms).
func TestTableEntrySizes(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are for 64-bit platforms")
	}
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"Location", unsafe.Sizeof(Location{}), 24},
		{"Function", unsafe.Sizeof(Function{}), 24},
		{"Line", unsafe.Sizeof(Line{}), 16},
		{"Sample", unsafe.Sizeof(Sample{}), 40},
		{"LabelSet", unsafe.Sizeof(LabelSet{}), 24},
	} {
		if c.got != c.want {
			t.Errorf("%s takes %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}

func small() *Profile {
	b := NewBuilder()
	p := b.P
	p.SampleTypes = []ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	p.Mappings = []Mapping{{Start: 0x1000, Limit: 0x2000, File: b.String("/bin/x")}}
	p.Functions = []Function{{Name: b.String("main")}}
	p.AddLocation(Location{Address: 0x1010, Mapping: 0}, Line{Function: 0, Line: 3})
	p.AddLocation(Location{Address: 0x5, Mapping: NoMapping})
	s := b.Stack([]int32{1, 0})
	ls := b.LabelSet([]Label{{Key: b.String("k"), Str: b.String("v")}})
	p.Samples = []Sample{NewSample(s, []int64{1})}
	p.Samples[0].LabelSet = ls
	return p
}

func TestBuilderDedupes(t *testing.T) {
	b := NewBuilder()
	if b.String("") != 0 {
		t.Fatal(`"" is not index 0`)
	}
	a, c := b.String("a"), b.String("a")
	if a != c || a != 1 {
		t.Fatalf("String(a) = %d then %d, want 1 twice", a, c)
	}
	s1 := b.Stack([]int32{1, 2, 3})
	s2 := b.Stack([]int32{1, 2})
	s3 := b.Stack([]int32{1, 2, 3})
	if s1 != s3 || s1 == s2 || b.P.Stacks.Len() != 2 {
		t.Fatalf("stacks %d %d %d, table %d", s1, s2, s3, b.P.Stacks.Len())
	}
	if got := b.P.Stacks.Append(nil, int(s2)); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("Append = %v", got)
	}
	l := []Label{{Key: 1, Str: 1}, {Key: 1, Num: 4}}
	if x, y := b.LabelSet(l), b.LabelSet(l); x != y || x != 1 {
		t.Fatalf("label sets %d %d", x, y)
	}
	if b.LabelSet(nil) != 0 {
		t.Fatal("empty label set is not 0")
	}
	// A builder over an existing profile finds what is already there.
	b2 := BuilderFor(b.P)
	if b2.Stack([]int32{1, 2}) != s2 || b2.String("a") != a || b2.LabelSet(l) != 1 {
		t.Fatal("BuilderFor did not index the existing tables")
	}
}

func TestValidate(t *testing.T) {
	if err := small().Validate(); err != nil {
		t.Fatalf("valid profile: %v", err)
	}
	cases := []struct {
		name   string
		break_ func(p *Profile)
		want   string
	}{
		{"string", func(p *Profile) { p.Functions[0].Name = 99 }, "function[0].name: string index 99"},
		{"mapping", func(p *Profile) { p.Locations[0].Mapping = 3 }, "location[0].mapping: index 3"},
		{"function", func(p *Profile) { p.LocationLines(0)[0].Function = -2 }, "location[0].line[0].function"},
		{"lines", func(p *Profile) { p.Locations[0].NumLines = 2 }, "location[0].lines: lines 0 to 2 out of range (1 lines)"},
		{"lines past 4G", func(p *Profile) { p.Locations[0].FirstLine = 1<<32 - 1 }, "location[0].lines: lines 4294967295 to 4294967296 out of range (1 lines)"},
		{"stack", func(p *Profile) { p.Stacks.narrow[1] = 7 }, "stack[0][1]: location index 7"},
		{"sample stack", func(p *Profile) { p.Samples[0].Stack = 1 }, "sample[0].stack"},
		{"values", func(p *Profile) { p.Samples[0].SetValues(nil) }, "sample[0]: 0 values for 1 sample types"},
		{"labelset", func(p *Profile) { p.Samples[0].LabelSet = 5 }, "sample[0].label_set"},
		{"link", func(p *Profile) { p.Samples[0].Link = 0 }, "sample[0].link"},
		{"strings0", func(p *Profile) { p.Strings[0] = "x" }, "strings[0]"},
		{"offsets", func(p *Profile) { p.Stacks.offsets[1] = 9 }, "stacks: offsets"},
		{"comment", func(p *Profile) { p.Comments = []int32{-1} }, "comment[0]"},
		{"profile id", func(p *Profile) { p.ProfileID = []byte{1} }, "profile_id"},
		{"label", func(p *Profile) { p.LabelSets[1].Labels()[0].NumUnit = 1000 }, "label_set[1][0].num_unit"},
	}
	for _, c := range cases {
		p := small()
		c.break_(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want error containing %q", c.name, err, c.want)
		}
	}
	var nilp *Profile
	if nilp.Validate() == nil {
		t.Error("nil profile validated")
	}
}

// TestLabelSetWithAttributes: a label set's attributes are part of its
// identity, kinds and units included.
func TestLabelSetWithAttributes(t *testing.T) {
	b := NewBuilder()
	l := []Label{{Key: b.String("k"), Str: b.String("v")}}
	boolTrue := []Attribute{{Key: "b", Value: Value{Kind: KindBool, Bool: true}}}
	sets := []int32{
		b.LabelSet(l),
		b.LabelSetWith(l, boolTrue),
		b.LabelSetWith(l, []Attribute{{Key: "b", Value: Value{Kind: KindBool}}}),
		b.LabelSetWith(l, []Attribute{{Key: "b", Value: Value{Kind: KindInt, Int: 1}}}),
		b.LabelSetWith(l, []Attribute{{Key: "b", Value: Value{Kind: KindBool, Bool: true}, Unit: "u"}}),
		b.LabelSetWith(nil, boolTrue),
		b.LabelSetWith(nil, []Attribute{{Key: "d", Value: Value{Kind: KindDouble, Double: 1.5}}}),
		b.LabelSetWith(nil, []Attribute{{Key: "d", Value: Value{Kind: KindDouble, Double: 2.5}}}),
	}
	seen := map[int32]bool{}
	for i, s := range sets {
		if seen[s] || s == 0 {
			t.Fatalf("set %d is %d, not a new set (%v)", i, s, sets)
		}
		seen[s] = true
	}
	if again := b.LabelSetWith(l, []Attribute{{Key: "b", Value: Value{Kind: KindBool, Bool: true}}}); again != sets[1] {
		t.Errorf("the same labels and attributes gave set %d, want %d", again, sets[1])
	}
	if got := b.P.LabelSets[sets[4]].Attributes()[0].Unit; got != "u" {
		t.Errorf("unit %q", got)
	}
	// A builder over the profile finds the sets it holds.
	b2 := BuilderFor(b.P)
	if again := b2.LabelSetWith(nil, boolTrue); again != sets[5] {
		t.Errorf("BuilderFor: set %d, want %d", again, sets[5])
	}
	if b.LabelSetWith(nil, nil) != 0 {
		t.Error("no labels and no attributes is not set 0")
	}
}

// Location attributes take room only once a location has some, and are
// found by the location's index whether or not the table reaches it.
func TestLocationAttrs(t *testing.T) {
	p := small()
	if p.LocationAttributes != nil || p.LocationAttrs(1) != nil {
		t.Fatal("a profile without location attributes has a table of them")
	}
	p.SetLocationAttrs(0, nil)
	if p.LocationAttributes != nil {
		t.Fatal("setting no attributes made a table")
	}
	as := []Attribute{{Key: "profile.frame.type", Value: Value{Kind: KindString, Str: "native"}}}
	p.SetLocationAttrs(1, as)
	if len(p.LocationAttributes) != 2 || p.LocationAttrs(0) != nil || len(p.LocationAttrs(1)) != 1 || p.LocationAttrs(2) != nil {
		t.Fatalf("after setting location 1: %+v", p.LocationAttributes)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.LocationAttributes = append(p.LocationAttributes, as)
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "3 entries for 2 locations") {
		t.Fatalf("a table longer than the locations: %v", err)
	}
}

// A location's lines are a range of the profile's, found in place, and
// new ones go to the end of the table.
func TestLocationLines(t *testing.T) {
	p := New()
	a := p.AddLocation(Location{Mapping: NoMapping}, Line{Function: NoFunction, Line: 1}, Line{Function: NoFunction, Line: 2})
	b := p.AddLocation(Location{Mapping: NoMapping})
	if got := p.LocationLines(int(a)); len(got) != 2 || got[0].Line != 1 || got[1].Line != 2 || cap(got) != 2 {
		t.Errorf("lines of a: %+v (cap %d)", got, cap(got))
	}
	if got := p.LocationLines(int(b)); got != nil || p.Locations[b].FirstLine != 0 {
		t.Errorf("lines of b: %+v at %d", got, p.Locations[b].FirstLine)
	}
	p.SetLines(&p.Locations[b], p.LocationLines(int(a))[1:]...)
	if l := p.Locations[b]; l.FirstLine != 2 || l.NumLines != 1 || len(p.Lines) != 3 || p.LocationLines(int(b))[0].Line != 2 {
		t.Errorf("b after SetLines: %+v, %d lines", l, len(p.Lines))
	}
	p.Locations[a].NumLines = 9
	if got := p.LocationLines(int(a)); got != nil {
		t.Errorf("a range past the table: %+v", got)
	}
}

// Columns are kept only once one is not 0, grow with the lines given
// them, and read as 0 past their end.
func TestColumns(t *testing.T) {
	p := New()
	a := p.AddLocation(Location{Mapping: NoMapping}, Line{Function: NoFunction, Line: 1}, Line{Function: NoFunction, Line: 2})
	p.SetColumns(&p.Locations[a], 0, 0)
	if p.Columns != nil {
		t.Fatalf("columns of 0 made a table: %v", p.Columns)
	}
	b := p.AddLocation(Location{Mapping: NoMapping}, Line{Function: NoFunction, Line: 3}, Line{Function: NoFunction, Line: 4})
	p.SetColumns(&p.Locations[b], 5, 6, 7) // one more than b has lines: not set
	if got, want := p.Columns, []int64{0, 0, 5, 6}; !slices.Equal(got, want) {
		t.Fatalf("columns %v, want %v", got, want)
	}
	if p.ColumnOf(&p.Locations[b], 1) != 6 || p.ColumnOf(&p.Locations[a], 1) != 0 || p.Column(99) != 0 {
		t.Errorf("ColumnOf: %d %d %d, want 6 0 0", p.ColumnOf(&p.Locations[b], 1), p.ColumnOf(&p.Locations[a], 1), p.Column(99))
	}
	// A table cut short and grown again shows no column it held before.
	p.Columns = p.Columns[:1]
	p.SetColumn(3, 8)
	if got, want := p.Columns, []int64{0, 0, 0, 8}; !slices.Equal(got, want) {
		t.Errorf("columns %v after growing again, want %v", got, want)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.Columns = append(p.Columns, 1)
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "columns: 5 entries for 4 lines") {
		t.Errorf("Validate of more columns than lines: %v", err)
	}
}

// A sample's values and timestamps are the slices given, held as a
// pointer and a length: the same array comes back, empty ones as nil, and
// appending to what comes back never writes past it into a shared array.
func TestSampleSlices(t *testing.T) {
	row := []int64{1, 2, 3, 4}
	s := NewSample(3, row[:2])
	if got := s.Values(); len(got) != 2 || cap(got) != 2 || &got[0] != &row[0] {
		t.Fatalf("values %v (cap %d), want the first 2 of the row itself", got, cap(got))
	}
	if _ = append(s.Values(), 9); row[2] != 3 {
		t.Fatalf("appending to the values wrote into the row: %v", row)
	}
	if s.Stack != 3 || s.LabelSet != 0 || s.Link != NoLink || s.Timestamps() != nil {
		t.Fatalf("new sample %+v", s)
	}
	s.SetTimestamps([]uint64{5, 6})
	if got := s.Timestamps(); len(got) != 2 || got[1] != 6 {
		t.Fatalf("timestamps %v", got)
	}
	s.SetValues([]int64{})
	s.SetTimestamps(nil)
	if s.Values() != nil || s.Timestamps() != nil {
		t.Fatalf("empty values %v, timestamps %v: want nil", s.Values(), s.Timestamps())
	}
}

func TestLabelSetSlices(t *testing.T) {
	slab := []Label{{Key: 1, Str: 2}, {Key: 3, Num: 4}, {Key: 5, Str: 6}}
	attrs := []Attribute{{Key: "a", Value: Value{Kind: KindBool, Bool: true}}}
	ls := NewLabelSet(slab[:2], attrs)
	if got := ls.Labels(); len(got) != 2 || cap(got) != 2 || &got[0] != &slab[0] {
		t.Fatalf("labels %v (cap %d), want the first 2 of the slab itself", got, cap(got))
	}
	if _ = append(ls.Labels(), Label{Key: 9}); slab[2].Key != 5 {
		t.Fatalf("appending to the labels wrote into the slab: %v", slab)
	}
	if got := ls.Attributes(); len(got) != 1 || cap(got) != 1 || got[0].Key != "a" {
		t.Fatalf("attributes %v", got)
	}
	ls.SetLabels([]Label{})
	ls.SetAttributes(nil)
	if ls.Labels() != nil || ls.Attributes() != nil {
		t.Fatalf("empty labels %v, attributes %v: want nil", ls.Labels(), ls.Attributes())
	}
	if (LabelSet{}).Labels() != nil {
		t.Fatal("the zero set has labels")
	}
}
