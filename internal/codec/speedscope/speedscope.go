// Package speedscope writes speedscope's JSON file format
// (https://www.speedscope.app/file-format-schema.json): one "sampled"
// profile per sample type, sharing one frame table, each holding one
// sample per distinct stack with its summed value as the weight.
package speedscope

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"strconv"

	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

// SchemaURL is the $schema speedscope's files name.
const SchemaURL = "https://www.speedscope.app/file-format-schema.json"

// Options control Encode.
type Options struct {
	// SampleType picks the profile speedscope opens first ("" = the
	// default sample type, as pprof chooses it); every type is written.
	SampleType string
	Lines      bool   // frames named "function file:line"
	Name       string // the file's name, shown by speedscope
	Exporter   string // e.g. "pprofx v1.2.3"
	Warn       func(string)
}

// Unit maps a pprof unit to speedscope's ValueUnit ("none" when it has no
// such unit).
func Unit(u string) string {
	switch u {
	case "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes":
		return u
	}
	return "none"
}

// Encode writes p as a speedscope file.
func Encode(w io.Writer, p *model.Profile, opts Options) error {
	active, err := callstacks.SampleIndex(p, opts.SampleType)
	if err != nil {
		return err
	}
	types := make([]int, len(p.SampleTypes))
	for i := range types {
		types[i] = i
	}
	set := callstacks.Aggregate(p, types, callstacks.Options{Lines: opts.Lines})
	files := fileOf(p, set)

	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	b = append(b, `{"$schema":`...)
	b = strconv.AppendQuote(b, SchemaURL)
	if opts.Name != "" {
		b = append(b, `,"name":`...)
		b = appendString(b, opts.Name)
	}
	b = append(b, `,"exporter":`...)
	b = appendString(b, opts.Exporter)
	b = append(b, `,"activeProfileIndex":`...)
	b = strconv.AppendInt(b, int64(active), 10)
	b = append(b, `,"shared":{"frames":[`...)
	for i := range int32(set.NumNames()) {
		n := set.Name(i)
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, n)
		if f := files[i]; f != 0 {
			b = append(b, `,"file":`...)
			b = appendString(b, p.String(f))
		}
		b = append(b, '}')
		if len(b) > 1<<16 {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, `]},"profiles":[`...)
	var units []string
	for t, ti := range types {
		st := p.SampleTypes[ti]
		unit := p.String(st.Unit)
		if Unit(unit) != unit {
			units = append(units, unit)
		}
		if t > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"sampled","name":`...)
		b = appendString(b, p.String(st.Type)+"/"+unit)
		b = append(b, `,"unit":"`...)
		b = append(b, Unit(unit)...)
		b = append(b, `","startValue":0,"endValue":`...)
		// Stacks with a zero value for this type are left out.
		var total int64
		for _, v := range set.Values[t] {
			total += v
		}
		b = strconv.AppendInt(b, total, 10)
		b = append(b, `,"samples":[`...)
		first := true
		for i := 0; i < set.Len(); i++ {
			if set.Values[t][i] == 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '[')
			for j, f := range set.Stack(i) {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(f), 10)
				if len(b) > 1<<16 { // a stack may have millions of frames
					bw.Write(b)
					b = b[:0]
				}
			}
			b = append(b, ']')
		}
		b = append(b, `],"weights":[`...)
		first = true
		for i := 0; i < set.Len(); i++ {
			v := set.Values[t][i]
			if v == 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendInt(b, v, 10)
			if len(b) > 1<<16 {
				bw.Write(b)
				b = b[:0]
			}
		}
		b = append(b, "]}"...)
	}
	b = append(b, "]}\n"...)
	bw.Write(b)
	if opts.Warn != nil {
		if len(units) > 0 {
			opts.Warn(fmt.Sprintf("speedscope has no unit %q: written as \"none\"", units[0]))
		}
		if len(p.LabelSets) > 1 || len(p.Mappings) > 0 {
			opts.Warn("speedscope holds stacks of frame names: labels, addresses and mappings are dropped")
		}
	}
	return bw.Flush()
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// fileOf gives each frame name the file of the first function of that
// name with one (as a string index of p, 0 for none), when the name is a
// function's (not an address, not with --lines). The functions are found
// by a hash index of their numbers (hashindex: 8 to 16 bytes a function),
// where a map from every name to its file took 60 bytes and more.
func fileOf(p *model.Profile, set *callstacks.Set) []int32 {
	seed := maphash.MakeSeed()
	name := func(f uint32) string { return p.String(p.Functions[f].Name) }
	hash := func(f uint32) uint64 { return maphash.String(seed, name(f)) }
	var idx hashindex.Index
	idx.Reserve(len(p.Functions))
	for i := range p.Functions {
		if p.Functions[i].Filename == 0 || p.String(p.Functions[i].Filename) == "" {
			continue
		}
		n := name(uint32(i))
		if _, slot, ok := idx.Find(maphash.String(seed, n), func(f uint32) bool { return name(f) == n }); !ok {
			idx.Add(slot, uint32(i), hash)
		}
	}
	out := make([]int32, set.NumNames())
	for i := range out {
		n := set.Name(int32(i))
		if f, _, ok := idx.Find(maphash.String(seed, n), func(f uint32) bool { return name(f) == n }); ok {
			out[i] = p.Functions[f].Filename
		}
	}
	return out
}
