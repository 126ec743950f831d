package model

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
)

// Validate checks that every reference in p is in range and that the
// reserved entries are in place. It returns an error naming the first bad
// reference, and never panics.
func (p *Profile) Validate() error {
	if p == nil {
		return fmt.Errorf("nil profile")
	}
	if len(p.Strings) == 0 || p.Strings[0] != "" {
		return fmt.Errorf("strings[0] must be the empty string")
	}
	v := validator{p: p, ns: len(p.Strings)}
	if err := v.mappingsAndFunctions(); err != nil {
		return err
	}
	if err := v.locations(); err != nil {
		return err
	}
	if err := v.stacks(); err != nil {
		return err
	}
	if err := v.labelSets(); err != nil {
		return err
	}
	if err := v.links(); err != nil {
		return err
	}
	if err := v.samples(); err != nil {
		return err
	}
	return v.header()
}

// validator checks one profile's references; the names of what is checked
// are formatted only on failure.
type validator struct {
	p  *Profile
	ns int // strings
}

func (v *validator) bad(i int32) bool { return i < 0 || int(i) >= v.ns }

func (v *validator) str(what string, i int32) error {
	if v.bad(i) {
		return fmt.Errorf("%s: string index %d out of range (%d strings)", what, i, v.ns)
	}
	return nil
}

func (v *validator) valueType(what string, t ValueType) error {
	if err := v.str(what+".type", t.Type); err != nil {
		return err
	}
	return v.str(what+".unit", t.Unit)
}

func (v *validator) mappingsAndFunctions() error {
	for i, m := range v.p.Mappings {
		if v.bad(m.File) {
			return v.str(fmt.Sprintf("mapping[%d].file", i), m.File)
		}
		if v.bad(m.BuildID) {
			return v.str(fmt.Sprintf("mapping[%d].build_id", i), m.BuildID)
		}
	}
	for i, f := range v.p.Functions {
		if v.bad(f.Name) {
			return v.str(fmt.Sprintf("function[%d].name", i), f.Name)
		}
		if v.bad(f.SystemName) {
			return v.str(fmt.Sprintf("function[%d].system_name", i), f.SystemName)
		}
		if v.bad(f.Filename) {
			return v.str(fmt.Sprintf("function[%d].filename", i), f.Filename)
		}
	}
	return nil
}

func (v *validator) locations() error {
	p := v.p
	nf := len(p.Functions)
	if len(p.LocationAttributes) > len(p.Locations) {
		return fmt.Errorf("location attributes: %d entries for %d locations", len(p.LocationAttributes), len(p.Locations))
	}
	if len(p.Columns) > len(p.Lines) {
		return fmt.Errorf("columns: %d entries for %d lines", len(p.Columns), len(p.Lines))
	}
	for i, l := range p.Locations {
		if l.Mapping != NoMapping && (l.Mapping < 0 || int(l.Mapping) >= len(p.Mappings)) {
			return fmt.Errorf("location[%d].mapping: index %d out of range (%d mappings)", i, l.Mapping, len(p.Mappings))
		}
		if end := uint64(l.FirstLine) + uint64(l.NumLines); l.NumLines > 0 && end > uint64(len(p.Lines)) {
			return fmt.Errorf("location[%d].lines: lines %d to %d out of range (%d lines)", i, l.FirstLine, end, len(p.Lines))
		}
		for j, ln := range p.LinesOf(&l) {
			if ln.Function != NoFunction && (ln.Function < 0 || int(ln.Function) >= nf) {
				return fmt.Errorf("location[%d].line[%d].function: index %d out of range (%d functions)", i, j, ln.Function, nf)
			}
		}
	}
	return nil
}

func (v *validator) stacks() error {
	st := &v.p.Stacks
	n := st.NumFrames()
	if len(st.offsets) == 1 || (len(st.offsets) == 0 && n != 0) {
		return fmt.Errorf("stacks: %d offsets for %d frames", len(st.offsets), n)
	}
	if len(st.offsets) > 0 {
		if st.offsets[0] != 0 || int(st.offsets[len(st.offsets)-1]) != n {
			return fmt.Errorf("stacks: offsets do not span the %d frames", n)
		}
		for i := 1; i < len(st.offsets); i++ {
			if st.offsets[i] < st.offsets[i-1] {
				return fmt.Errorf("stack[%d]: offsets decrease", i-1)
			}
		}
	}
	nl := len(v.p.Locations)
	// Every frame at once; the stack of a bad one is looked for after.
	bad := false
	if st.isWide {
		for _, loc := range st.wide {
			bad = bad || loc < 0 || int(loc) >= nl
		}
	} else {
		for _, loc := range st.narrow {
			bad = bad || int(loc) >= nl
		}
	}
	if !bad {
		return nil
	}
	for i := 0; i < st.Len(); i++ {
		for j := range st.StackLen(i) {
			if loc := st.Frame(i, j); loc < 0 || int(loc) >= nl {
				return fmt.Errorf("stack[%d][%d]: location index %d out of range (%d locations)", i, j, loc, nl)
			}
		}
	}
	return nil
}

func (v *validator) labelSets() error {
	p := v.p
	if len(p.LabelSets) == 0 || len(p.LabelSets[0].Labels()) != 0 || len(p.LabelSets[0].Attributes()) != 0 {
		return fmt.Errorf("label_sets[0] must be the empty set")
	}
	for i, ls := range p.LabelSets {
		for j, l := range ls.Labels() {
			if v.bad(l.Key) || v.bad(l.Str) || v.bad(l.NumUnit) {
				what := fmt.Sprintf("label_set[%d][%d]", i, j)
				if err := v.str(what+".key", l.Key); err != nil {
					return err
				}
				if err := v.str(what+".str", l.Str); err != nil {
					return err
				}
				return v.str(what+".num_unit", l.NumUnit)
			}
		}
	}
	return nil
}

func (v *validator) links() error {
	for i, l := range v.p.Links {
		if len(l.TraceID) != 0 && len(l.TraceID) != 16 {
			return fmt.Errorf("link[%d].trace_id: %d bytes, want 16", i, len(l.TraceID))
		}
		if len(l.SpanID) != 0 && len(l.SpanID) != 8 {
			return fmt.Errorf("link[%d].span_id: %d bytes, want 8", i, len(l.SpanID))
		}
	}
	return nil
}

func (v *validator) samples() error {
	p := v.p
	nv, nst := len(p.SampleTypes), p.Stacks.Len()
	for i, s := range p.Samples {
		if s.Stack < 0 || int(s.Stack) >= nst {
			return fmt.Errorf("sample[%d].stack: index %d out of range (%d stacks)", i, s.Stack, nst)
		}
		if len(s.Values()) != nv {
			return fmt.Errorf("sample[%d]: %d values for %d sample types", i, len(s.Values()), nv)
		}
		if s.LabelSet < 0 || int(s.LabelSet) >= len(p.LabelSets) {
			return fmt.Errorf("sample[%d].label_set: index %d out of range (%d label sets)", i, s.LabelSet, len(p.LabelSets))
		}
		if s.Link != NoLink && (s.Link < 0 || int(s.Link) >= len(p.Links)) {
			return fmt.Errorf("sample[%d].link: index %d out of range (%d links)", i, s.Link, len(p.Links))
		}
	}
	return nil
}

func (v *validator) header() error {
	p := v.p
	for i, t := range p.SampleTypes {
		if v.bad(t.Type) || v.bad(t.Unit) {
			return v.valueType(fmt.Sprintf("sample_type[%d]", i), t)
		}
	}
	if v.bad(p.PeriodType.Type) || v.bad(p.PeriodType.Unit) {
		return v.valueType("period_type", p.PeriodType)
	}
	for i, c := range p.Comments {
		if v.bad(c) {
			return v.str(fmt.Sprintf("comment[%d]", i), c)
		}
	}
	for _, e := range [...]struct {
		n string
		v int32
	}{{"default_sample_type", p.DefaultSampleType}, {"drop_frames", p.DropFrames}, {"keep_frames", p.KeepFrames}, {"doc_url", p.DocURL}} {
		if v.bad(e.v) {
			return v.str(e.n, e.v)
		}
	}
	if len(p.ProfileID) != 0 && len(p.ProfileID) != 16 {
		return fmt.Errorf("profile_id: %d bytes, want 16", len(p.ProfileID))
	}
	return nil
}

// MemoryPerInputByte bounds what a decoder may allocate for a profile's
// tables, per byte of its (decompressed) input, when no memory limit is
// known. With the input itself and the decoders' own buffers, a process
// stays within 64 MiB plus 16 times the input. It is more than the 3 that
// memlimit.Bound (64 MiB + 4 x the input, the input included) would give
// because real entries take more than that in the model: a pprof location
// of an id and a line is 8 bytes on the wire and 96 here, and OTLP's
// count from the wire comes to 11 times the collector's real files
// (docs/limits.md). Under a memory limit the limit is what counts.
const MemoryPerInputByte = 14

// memorySlack is what any input may take beyond MemoryPerInputByte times
// its size (a small input with a few large tables).
const memorySlack = 16 << 20

// memoryAvail is what a decode may take in all, input included, under
// the process's memory limit (SetMemoryAvailable); 0: no limit.
var memoryAvail atomic.Int64

// SetMemoryAvailable sets what a decode may take in all under the
// process's memory limit (internal/memlimit), its input included, that
// CheckMemory holds every count to; 0 is no limit.
func SetMemoryAvailable(n int64) { memoryAvail.Store(max(n, 0)) }

// machineMemory is the machine's memory (SetMachineMemory); 0: not known.
var machineMemory atomic.Int64

// SetMachineMemory gives CheckMemory the machine's memory
// (internal/memlimit), which the counts of a decode are held to when no
// memory limit is set: a crafted input within MemoryPerInputByte times its
// size may still need more than the machine has, and is then refused
// rather than started and killed. 0 is not known.
func SetMachineMemory(n int64) { machineMemory.Store(max(n, 0)) }

// memoryInUse is what the process holds now (SetMemoryInUse), and
// memoryBase what it held when it was set.
var (
	memoryInUse atomic.Pointer[func() int64]
	memoryBase  atomic.Int64
)

// SetMemoryInUse gives CheckAvailable and CheckAvailableNow what the
// process holds at any moment (internal/memlimit), and base, what it held
// when SetMemoryAvailable's figure was found (0: what it holds now).
func SetMemoryInUse(inUse func() int64, base int64) {
	if base <= 0 {
		base = inUse()
	}
	memoryBase.Store(base)
	memoryInUse.Store(&inUse)
}

// CheckAvailableNow refuses a step that would take need bytes more than
// the memory limit leaves now: what it left when it was set, less what
// the process took since (a profile decoded, its input). Encoders check
// with it before a step whose memory grows with the profile.
func CheckAvailableNow(format string, need int64, what string) error {
	avail, limited, now := availableNow()
	if limited && need > avail && now {
		// What the process holds includes what it no longer uses (the
		// profiles a command read and dropped): collected and handed
		// back, it is counted again before the step is refused.
		debug.FreeOSMemory()
		avail, _, _ = availableNow()
	}
	if limited && need > avail {
		return fmt.Errorf("%s: %s would take %s more in memory, more than the %s the memory limit leaves now: refused (--max-memory; the smallest of ulimit -v, cgroup memory.max, GOMEMLIMIT and --max-memory wins)",
			format, what, HumanBytes(need), HumanBytes(avail))
	}
	return nil
}

// availableNow is what the memory limit leaves: what it left when it was
// set, less what the process took since when SetMemoryInUse says (now
// reports that it did). limited is false without a limit.
func availableNow() (avail int64, limited, now bool) {
	avail = memoryAvail.Load()
	if avail <= 0 {
		return 0, false, false
	}
	if f := memoryInUse.Load(); f != nil {
		return max(avail-max((*f)()-memoryBase.Load(), 0), 0), true, true
	}
	return avail, true, false
}

// CheckMemory refuses a decode whose tables, counted before they are
// allocated, would take need bytes: more than MemoryPerInputByte times the
// input bytes that hold them, or, with the input, more than the memory
// limit leaves (SetMemoryAvailable), or, with no limit set, more than the
// machine has (SetMachineMemory). what names the counts, for the message.
func CheckMemory(format string, need, inputBytes int64, what string) error {
	if err := CheckAvailable(format, need, inputBytes, what); err != nil {
		return err
	}
	if need > MemoryPerInputByte*inputBytes+memorySlack {
		return fmt.Errorf("%s: %s in %d bytes would take %s in memory, more than %d times the input: refused (a crafted or corrupt file?)",
			format, what, inputBytes, HumanBytes(need), MemoryPerInputByte)
	}
	if _, limited, _ := availableNow(); !limited {
		if m := machineMemory.Load(); m > 0 && need+inputBytes > m {
			return fmt.Errorf("%s: %s in %d bytes would take %s in memory with the input, more than the machine's %s: refused (a crafted or corrupt file? --max-memory sets a limit to hold it to instead)",
				format, what, inputBytes, HumanBytes(need+inputBytes), HumanBytes(m))
		}
	}
	return nil
}

// CheckAvailable is the half of CheckMemory that holds need, with the
// input, to what the memory limit leaves, for a decoder whose tables may
// take many times their bytes in a valid input.
func CheckAvailable(format string, need, inputBytes int64, what string) error {
	avail, limited, now := availableNow()
	if !limited {
		return nil
	}
	if now {
		// What the process took since the limit was set holds the input
		// (and the profiles a command read before this one).
		return CheckAvailableNow(format, need, fmt.Sprintf("%s in %d bytes", what, inputBytes))
	}
	if need+inputBytes > avail {
		return fmt.Errorf("%s: %s in %d bytes would take %s in memory with the input, more than the %s the memory limit leaves: refused (--max-memory; the smallest of ulimit -v, cgroup memory.max, GOMEMLIMIT and --max-memory wins)",
			format, what, inputBytes, HumanBytes(need+inputBytes), HumanBytes(avail))
	}
	return nil
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
