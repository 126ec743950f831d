package model

import "fmt"

// Validate checks that every reference in p is in range and that the
// reserved entries are in place. It returns an error naming the first bad
// reference, and never panics.
func (p *Profile) Validate() error {
	if p == nil {
		return fmt.Errorf("nil profile")
	}
	ns := len(p.Strings)
	if ns == 0 || p.Strings[0] != "" {
		return fmt.Errorf("strings[0] must be the empty string")
	}
	str := func(what string, i int32) error {
		if i < 0 || int(i) >= ns {
			return fmt.Errorf("%s: string index %d out of range (%d strings)", what, i, ns)
		}
		return nil
	}
	vt := func(what string, v ValueType) error {
		if err := str(what+".type", v.Type); err != nil {
			return err
		}
		return str(what+".unit", v.Unit)
	}
	bad := func(i int32) bool { return i < 0 || int(i) >= ns }
	for i, m := range p.Mappings {
		if bad(m.File) {
			return str(fmt.Sprintf("mapping[%d].file", i), m.File)
		}
		if bad(m.BuildID) {
			return str(fmt.Sprintf("mapping[%d].build_id", i), m.BuildID)
		}
	}
	for i, f := range p.Functions {
		if bad(f.Name) {
			return str(fmt.Sprintf("function[%d].name", i), f.Name)
		}
		if bad(f.SystemName) {
			return str(fmt.Sprintf("function[%d].system_name", i), f.SystemName)
		}
		if bad(f.Filename) {
			return str(fmt.Sprintf("function[%d].filename", i), f.Filename)
		}
	}
	nf := len(p.Functions)
	for i, l := range p.Locations {
		if l.Mapping != NoMapping && (l.Mapping < 0 || int(l.Mapping) >= len(p.Mappings)) {
			return fmt.Errorf("location[%d].mapping: index %d out of range (%d mappings)", i, l.Mapping, len(p.Mappings))
		}
		for j, ln := range l.Lines {
			if ln.Function != NoFunction && (ln.Function < 0 || int(ln.Function) >= nf) {
				return fmt.Errorf("location[%d].line[%d].function: index %d out of range (%d functions)", i, j, ln.Function, nf)
			}
		}
	}
	st := &p.Stacks
	if len(st.Offsets) == 1 || (len(st.Offsets) == 0 && len(st.Frames) != 0) {
		return fmt.Errorf("stacks: %d offsets for %d frames", len(st.Offsets), len(st.Frames))
	}
	if len(st.Offsets) > 0 {
		if st.Offsets[0] != 0 || int(st.Offsets[len(st.Offsets)-1]) != len(st.Frames) {
			return fmt.Errorf("stacks: offsets do not span the %d frames", len(st.Frames))
		}
		for i := 1; i < len(st.Offsets); i++ {
			if st.Offsets[i] < st.Offsets[i-1] {
				return fmt.Errorf("stack[%d]: offsets decrease", i-1)
			}
		}
	}
	nl := len(p.Locations)
	for i := 0; i < st.Len(); i++ {
		for j, loc := range st.Get(i) {
			if loc < 0 || int(loc) >= nl {
				return fmt.Errorf("stack[%d][%d]: location index %d out of range (%d locations)", i, j, loc, nl)
			}
		}
	}
	if len(p.LabelSets) == 0 || len(p.LabelSets[0].Labels) != 0 {
		return fmt.Errorf("label_sets[0] must be the empty set")
	}
	for i, ls := range p.LabelSets {
		for j, l := range ls.Labels {
			if bad(l.Key) || bad(l.Str) || bad(l.NumUnit) {
				what := fmt.Sprintf("label_set[%d][%d]", i, j)
				if err := str(what+".key", l.Key); err != nil {
					return err
				}
				if err := str(what+".str", l.Str); err != nil {
					return err
				}
				return str(what+".num_unit", l.NumUnit)
			}
		}
	}
	for i, l := range p.Links {
		if len(l.TraceID) != 0 && len(l.TraceID) != 16 {
			return fmt.Errorf("link[%d].trace_id: %d bytes, want 16", i, len(l.TraceID))
		}
		if len(l.SpanID) != 0 && len(l.SpanID) != 8 {
			return fmt.Errorf("link[%d].span_id: %d bytes, want 8", i, len(l.SpanID))
		}
	}
	nv := len(p.SampleTypes)
	for i, s := range p.Samples {
		if s.Stack < 0 || int(s.Stack) >= st.Len() {
			return fmt.Errorf("sample[%d].stack: index %d out of range (%d stacks)", i, s.Stack, st.Len())
		}
		if len(s.Values) != nv {
			return fmt.Errorf("sample[%d]: %d values for %d sample types", i, len(s.Values), nv)
		}
		if s.LabelSet < 0 || int(s.LabelSet) >= len(p.LabelSets) {
			return fmt.Errorf("sample[%d].label_set: index %d out of range (%d label sets)", i, s.LabelSet, len(p.LabelSets))
		}
		if s.Link != NoLink && (s.Link < 0 || int(s.Link) >= len(p.Links)) {
			return fmt.Errorf("sample[%d].link: index %d out of range (%d links)", i, s.Link, len(p.Links))
		}
	}
	// The names of what is checked are formatted only on failure.
	for i, t := range p.SampleTypes {
		if bad(t.Type) || bad(t.Unit) {
			return vt(fmt.Sprintf("sample_type[%d]", i), t)
		}
	}
	if bad(p.PeriodType.Type) || bad(p.PeriodType.Unit) {
		return vt("period_type", p.PeriodType)
	}
	for i, c := range p.Comments {
		if bad(c) {
			return str(fmt.Sprintf("comment[%d]", i), c)
		}
	}
	for _, e := range [...]struct {
		n string
		v int32
	}{{"default_sample_type", p.DefaultSampleType}, {"drop_frames", p.DropFrames}, {"keep_frames", p.KeepFrames}, {"doc_url", p.DocURL}} {
		if bad(e.v) {
			return str(e.n, e.v)
		}
	}
	if len(p.ProfileID) != 0 && len(p.ProfileID) != 16 {
		return fmt.Errorf("profile_id: %d bytes, want 16", len(p.ProfileID))
	}
	return nil
}

// MemoryPerInputByte bounds what a decoder may allocate for a profile's
// tables, per byte of its (decompressed) input. With the input itself and
// the decoders' own buffers, a process stays within 64 MiB plus 16 times
// the input.
const MemoryPerInputByte = 14

// memorySlack is what any input may take beyond MemoryPerInputByte times
// its size (a small input with a few large tables).
const memorySlack = 16 << 20

// CheckMemory refuses a decode whose tables, counted before they are
// allocated, would take need bytes: more than MemoryPerInputByte times the
// input bytes that hold them. what names the counts, for the message.
func CheckMemory(format string, need, inputBytes int64, what string) error {
	if need <= MemoryPerInputByte*inputBytes+memorySlack {
		return nil
	}
	return fmt.Errorf("%s: %s in %d bytes would take %s in memory, more than %d times the input: refused (a crafted or corrupt file?)",
		format, what, inputBytes, HumanBytes(need), MemoryPerInputByte)
}

// HumanBytes renders n bytes as e.g. "1.5 GiB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
