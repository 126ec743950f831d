// Package folded reads and writes Brendan Gregg's folded ("collapsed")
// stacks: one line per distinct stack, frames root first separated by
// ';', then a space and the stack's value:
//
//	main;work;leaf 42
//
// This is what flamegraph.pl's stackcollapse scripts, inferno, speedscope,
// Pyroscope and async-profiler (collapsed output) read and write.
package folded

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

// WriteOptions control Encode.
type WriteOptions struct {
	// SampleType picks the value written (callstacks.SampleIndex: "" is
	// the profile's default sample type, as pprof chooses it).
	SampleType string
	// Lines writes frames as "function file:line".
	Lines bool
	// Warn is told once what the folded output cannot hold.
	Warn func(string)
}

// Escape makes a frame name safe in a folded line, as async-profiler
// does: ';' (the frame separator) becomes '|', a line break a space.
func Escape(s string) string {
	if !strings.ContainsAny(s, ";\n\r") {
		return s
	}
	return strings.NewReplacer(";", "|", "\n", " ", "\r", " ").Replace(s)
}

// Encode writes p's stacks, summed, in folded form: one line per distinct
// stack of frame names, sorted, with its total for one sample type.
// Stacks whose total is zero are left out.
func Encode(w io.Writer, p *model.Profile, opts WriteOptions) error {
	ti, err := callstacks.SampleIndex(p, opts.SampleType)
	if err != nil {
		return err
	}
	escaped := false
	set := callstacks.Aggregate(p, []int{ti}, callstacks.Options{
		Lines: opts.Lines,
		Rename: func(s string) string {
			e := Escape(s)
			if e != s {
				escaped = true
			}
			return e
		},
		FuncName: annotatedName,
		Suffix:   FrameSuffix,
	})
	if opts.Warn != nil {
		warnLosses(p, ti, escaped, opts.Warn)
	}
	// A line goes out as it is made: a stack of millions of frames is a
	// line of tens of megabytes.
	bw := bufio.NewWriterSize(w, 1<<16)
	var num []byte
	for i := 0; i < set.Len(); i++ {
		for j, f := range set.Stack(i) {
			if j > 0 {
				bw.WriteByte(';')
			}
			bw.WriteString(set.Name(f))
		}
		num = append(strconv.AppendInt(append(num[:0], ' '), set.Values[0][i], 10), '\n')
		if _, err := bw.Write(num); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// AttrJFRFrameType is the location attribute holding JFR's frame type
// (jdk.types.StackFrame's field "type") of the location's outermost line,
// as the JFR reader writes it.
const AttrJFRFrameType = "jdk.types.StackFrame.type"

// jfrSuffixes are async-profiler's collapsed-stack suffixes of JFR's frame
// types (its FRAME_SUFFIX table, by TYPE_INTERPRETED, TYPE_JIT_COMPILED,
// TYPE_INLINED, TYPE_NATIVE, TYPE_CPP, TYPE_KERNEL, TYPE_C1_COMPILED).
var jfrSuffixes = map[string]string{
	"Interpreted": "_[0]", "JIT compiled": "_[j]", "Inlined": "_[i]",
	"Native": "", "C++": "", "Kernel": "_[k]", "C1 compiled": "_[1]",
}

// FrameSuffix is async-profiler's suffix of line k (innermost first) of a
// location whose frame type JFR recorded: the lines inlined into the
// physical frame "_[i]", the physical frame (the last line) that of its
// type. A location without that attribute (every input but JFR) has none.
func FrameSuffix(p *model.Profile, li int32, k int) string {
	loc := &p.Locations[li]
	for _, a := range p.LocationAttrs(int(li)) {
		if a.Key != AttrJFRFrameType || a.Value.Kind != model.KindString {
			continue
		}
		if k < int(loc.NumLines)-1 {
			return "_[i]"
		}
		return jfrSuffixes[a.Value.Str]
	}
	return ""
}

// annotatedName keeps an async-profiler annotation that Decode moved to
// the system name ("foo_[j]" for the function "foo").
func annotatedName(name, system string) string {
	if name == "" {
		return system
	}
	if base, ann := splitAnnotation(system); ann != "" && base == name {
		return system
	}
	return name
}

func warnLosses(p *model.Profile, ti int, escaped bool, warn func(string)) {
	var lost []string
	if n := len(p.SampleTypes) - 1; n > 0 {
		lost = append(lost, fmt.Sprintf("%d other sample type(s) (choose with --sample-type)", n))
	}
	if len(p.LabelSets) > 1 {
		lost = append(lost, "labels")
	}
	if len(p.Mappings) > 0 {
		lost = append(lost, "mappings and addresses")
	}
	if p.TimeNanos != 0 || p.DurationNanos != 0 || p.Period != 0 {
		lost = append(lost, "time, duration and period")
	}
	if len(lost) > 0 {
		st := p.SampleTypes[ti]
		warn(fmt.Sprintf("folded stacks hold one sample type (wrote %s/%s) and function names only: %s dropped",
			p.String(st.Type), p.String(st.Unit), strings.Join(lost, ", ")))
	}
	if escaped {
		warn("frame names with ';' or line breaks were escaped (';' -> '|', line break -> space)")
	}
}

// ReadOptions control Decode.
type ReadOptions struct {
	// SampleType names the values: "type/unit" or "type" (unit "count");
	// "" is samples/count.
	SampleType string
}

// splitAnnotation splits async-profiler's frame type suffix off a frame
// name: "foo_[j]" (JIT-compiled), "_[i]" (inlined), "_[k]" (kernel),
// "_[0]" (interpreted), "_[1]" (C1-compiled) and the like.
func splitAnnotation(s string) (base, ann string) {
	n := len(s)
	if n > 4 && s[n-1] == ']' && s[n-4:n-2] == "_[" {
		c := s[n-2]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			return s[:n-4], s[n-4:]
		}
	}
	return s, ""
}

// Decode reads folded stacks. Each non-empty line is a stack, frames root
// first separated by ';', then white space and a whole number. Lines of
// one stack are one sample, their values added (kept apart only where the
// sum would not fit in 64 bits). A frame with an
// async-profiler annotation ("foo_[j]") becomes the function "foo" with
// the system name "foo_[j]". Each distinct frame name is one function and
// one location.
func Decode(r io.Reader, opts ReadOptions) (*model.Profile, error) {
	typ, unit := "samples", "count"
	if opts.SampleType != "" {
		typ, unit, _ = strings.Cut(opts.SampleType, "/")
		if unit == "" {
			unit = "count"
		}
		if typ == "" {
			return nil, fmt.Errorf("--sample-type %q: want TYPE or TYPE/UNIT", opts.SampleType)
		}
	}
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String(typ), Unit: b.String(unit)}}
	// A frame's location, by the string index of its whole name (-1:
	// none yet). The names are found through the builder's index of
	// strings: a map keyed by them held each name again, and 40 bytes
	// or more an entry.
	var locOf []int32
	// The sample of each stack (-1: none yet): lines of one stack are one
	// sample, their values added, as flamegraph.pl and speedscope add
	// them. Values are cut from one array, made a few thousand at a time.
	var sampleOf []int32
	var vals []int64
	r, err := textReader(r)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<30)
	var stack []int32
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := bytes.TrimRight(sc.Bytes(), " \t\r")
		if len(bytes.TrimLeft(line, " \t")) == 0 {
			continue
		}
		sp := bytes.LastIndexAny(line, " \t")
		if sp < 0 {
			return nil, fmt.Errorf("line %d: no value after the stack (want \"a;b;c 42\")", lineNo)
		}
		num := string(line[sp+1:])
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return nil, fmt.Errorf("line %d: value %s does not fit in 64 bits", lineNo, clip(num))
			}
			if _, ferr := strconv.ParseFloat(num, 64); ferr == nil {
				return nil, fmt.Errorf("line %d: value %q is not a whole number", lineNo, num)
			}
			if len(num) > 2 && num[0] == '[' && num[len(num)-1] == ']' {
				return nil, fmt.Errorf("line %d: value %s in brackets: folded stacks end in a bare whole number (\"a;b 42\")", lineNo, clip(num))
			}
			return nil, fmt.Errorf("line %d: no value after the stack: %q is not a number", lineNo, clip(num))
		}
		text := bytes.TrimRight(line[:sp], " \t")
		if len(text) == 0 {
			return nil, fmt.Errorf("line %d: a value with no stack", lineNo)
		}
		stack = stack[:0]
		// An empty frame ("a;;b", or ";" as stackcollapse-perf.pl writes
		// a frame named by white space) is a frame with an empty name.
		for {
			// Frames are root first; the model's stacks leaf first.
			i := bytes.LastIndexByte(text, ';')
			name := text[i+1:]
			li := int32(-1)
			if si, ok := b.Lookup(name); ok && int(si) < len(locOf) {
				li = locOf[si]
			}
			if li < 0 {
				var si int32
				li, si = addFrame(b, string(name))
				for len(locOf) < len(p.Strings) {
					locOf = append(locOf, -1)
				}
				locOf[si] = li
			}
			stack = append(stack, li)
			if i < 0 {
				break
			}
			text = text[:i]
		}
		st := b.Stack(stack)
		for int(st) >= len(sampleOf) {
			sampleOf = append(sampleOf, -1)
		}
		if i := sampleOf[st]; i >= 0 {
			if sum, ok := addValue(p.Samples[i].Values()[0], v); ok {
				p.Samples[i].Values()[0] = sum
				continue
			}
		}
		sampleOf[st] = int32(len(p.Samples))
		p.Samples = append(p.Samples, model.NewSample(st, cutValue(&vals, v)))
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("line %d: longer than 1 GiB", lineNo+1)
		}
		return nil, err
	}
	if len(p.Samples) == 0 {
		return nil, fmt.Errorf("no stacks")
	}
	return p, nil
}

// addValue returns a+b, and false when it does not fit in 64 bits (the
// lines are then kept apart).
func addValue(a, b int64) (int64, bool) {
	sum := a + b
	if (sum > a) != (b > 0) {
		return 0, false
	}
	return sum, true
}

// cutValue returns a slice of one value, v, cut from the array at slab.
func cutValue(slab *[]int64, v int64) []int64 {
	if len(*slab) == cap(*slab) {
		*slab = make([]int64, 0, 4096)
	}
	*slab = append(*slab, v)
	n := len(*slab)
	return (*slab)[n-1 : n : n]
}

// addFrame adds the function and location of the frame named s, and
// returns the location and the string index of s.
func addFrame(b *model.Builder, s string) (loc, name int32) {
	p := b.P
	base, ann := splitAnnotation(s)
	fn := model.Function{Name: b.String(base)}
	name = fn.Name
	if ann != "" {
		fn.SystemName = b.String(s)
		name = fn.SystemName
	}
	p.Functions = append(p.Functions, fn)
	return p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: int32(len(p.Functions) - 1)}), name
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
