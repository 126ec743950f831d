// Package top computes and prints the flat/cumulative table of `pprof
// -top`: one row per function, with the same numbers, order and value
// formatting as google/pprof gives for the same profile and sample type.
package top

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

// Row is one function (pprof's node at "functions" granularity).
type Row struct {
	Name string // printable: the function name, "[binary]" or "<unknown>"
	// Inline is "(inline)" when every call into the function was inlined,
	// "(partial-inline)" when some were, else "".
	Inline    string
	Flat, Cum int64
}

// Table is the rows of one sample type, sorted.
type Table struct {
	Type, Unit string
	// Total is what percentages are of, pprof's report total: the sum of
	// the absolute values of the sample type, or, when the profile holds
	// samples labelled pprof::base=true (a -diff_base profile), of theirs.
	Total int64
	Rows  []Row
}

// Options control Compute.
type Options struct {
	SampleType string // callstacks.SampleIndex; "" = default
	Cum        bool   // sort by cumulative value, not flat
	// EdgeFraction is pprof's -edgefraction: a call edge whose weight is
	// under this fraction of the total flat value is dropped, and with it
	// the inline mark it gives its callee. pprof's default is 0.001.
	EdgeFraction float64
	// Total, when not nil, is the total to print percentages of: pprof
	// takes it before filters apply (see Totals).
	Total *int64
}

// DefaultEdgeFraction is pprof's default -edgefraction.
const DefaultEdgeFraction = 0.001

// TotalOf is pprof's report total of p for a sample type (see
// Table.Total).
func TotalOf(p *model.Profile, sampleType string) (int64, error) {
	ti, err := callstacks.SampleIndex(p, sampleType)
	if err != nil {
		return 0, err
	}
	var total, diffTotal int64
	base := diffBaseSets(p)
	for _, s := range p.Samples {
		if ti >= len(s.Values) {
			continue
		}
		v := s.Values[ti]
		if v < 0 {
			v = -v
		}
		total += v
		if s.LabelSet >= 0 && int(s.LabelSet) < len(base) && base[s.LabelSet] {
			diffTotal += v
		}
	}
	if diffTotal > 0 {
		return diffTotal, nil
	}
	return total, nil
}

// diffBaseSets marks the label sets holding pprof::base=true.
func diffBaseSets(p *model.Profile) []bool {
	out := make([]bool, len(p.LabelSets))
	for i, ls := range p.LabelSets {
		for _, l := range ls.Labels {
			if l.Str != 0 && p.String(l.Key) == "pprof::base" && p.String(l.Str) == "true" {
				out[i] = true
			}
		}
	}
	return out
}

// key identifies a row as pprof's NodeInfo does at function granularity:
// the function name, or for a frame without one the binary it is in.
type key struct {
	name, objfile string
}

type node struct {
	row           Row
	key           key
	inl, noInl    bool
	seen          int // last sample that counted this node's cum
	inEdgesInline map[int]bool
}

// Compute builds the table for one sample type of p.
func Compute(p *model.Profile, opts Options) (*Table, error) {
	ti, err := callstacks.SampleIndex(p, opts.SampleType)
	if err != nil {
		return nil, err
	}
	st := p.SampleTypes[ti]
	t := &Table{Type: p.String(st.Type), Unit: p.String(st.Unit)}

	var nodes []*node
	byKey := map[key]int{}
	locNodes := make([][]int, len(p.Locations)) // innermost first
	locDone := make([]bool, len(p.Locations))
	nodeOf := func(k key) int {
		if i, ok := byKey[k]; ok {
			return i
		}
		name := k.name
		if name == "" {
			name = "<unknown>"
			if k.objfile != "" {
				name = "[" + filepath.Base(k.objfile) + "]"
			}
		}
		nodes = append(nodes, &node{row: Row{Name: name}, key: k, seen: -1})
		byKey[k] = len(nodes) - 1
		return len(nodes) - 1
	}
	location := func(li int32) []int {
		if locDone[li] {
			return locNodes[li]
		}
		loc := &p.Locations[li]
		objfile := ""
		if loc.Mapping >= 0 && int(loc.Mapping) < len(p.Mappings) {
			objfile = p.String(p.Mappings[loc.Mapping].File)
		}
		var out []int
		for _, ln := range loc.Lines {
			k := key{objfile: objfile}
			if ln.Function >= 0 && int(ln.Function) < len(p.Functions) {
				if k.name = p.String(p.Functions[ln.Function].Name); k.name != "" {
					k.objfile = ""
				}
			}
			out = append(out, nodeOf(k))
		}
		if len(loc.Lines) == 0 {
			out = append(out, nodeOf(key{objfile: objfile}))
		}
		locNodes[li], locDone[li] = out, true
		return out
	}

	// Edges into a node (from its caller): inline only if every sample
	// that has the edge has it inside one location.
	type edge struct{ from, to int }
	edgeInline := map[edge]bool{}
	edgeWeight := map[edge]int64{}
	var flatSum int64
	var edgeOrder []edge
	seenEdge := map[edge]int{}
	for si, s := range p.Samples {
		if ti >= len(s.Values) {
			continue
		}
		w := s.Values[ti]
		if w == 0 {
			continue
		}
		stack := p.Stacks.Get(int(s.Stack))
		parent := -1
		for i := len(stack) - 1; i >= 0; i-- {
			ln := location(stack[i])
			for ni := len(ln) - 1; ni >= 0; ni-- {
				n := ln[ni]
				if nodes[n].seen != si {
					nodes[n].seen = si
					nodes[n].row.Cum += w
				}
				e := edge{parent, n}
				if parent >= 0 && n != parent {
					if last, ok := seenEdge[e]; !ok || last != si {
						seenEdge[e] = si
						edgeWeight[e] += w
						inline := ni != len(ln)-1
						if prev, ok := edgeInline[e]; ok {
							edgeInline[e] = prev && inline
						} else {
							edgeInline[e] = inline
							edgeOrder = append(edgeOrder, e)
						}
					}
				}
				parent = n
			}
		}
		if parent >= 0 {
			nodes[parent].row.Flat += w
			flatSum += w
		}
	}
	if opts.Total != nil {
		t.Total = *opts.Total
	} else if t.Total, err = TotalOf(p, opts.SampleType); err != nil {
		return nil, err
	}
	// pprof's edge cutoff: of the signed sum of flat values.
	cutoff := int64(float64(flatSum) * opts.EdgeFraction)
	if cutoff < 0 {
		cutoff = -cutoff
	}
	for _, e := range edgeOrder {
		if w := edgeWeight[e]; w < 0 && -w < cutoff || w >= 0 && w < cutoff {
			continue
		}
		if edgeInline[e] {
			nodes[e.to].inl = true
		} else {
			nodes[e.to].noInl = true
		}
	}
	for _, n := range nodes {
		if n.row.Flat == 0 && n.row.Cum == 0 {
			continue
		}
		switch {
		case n.inl && n.noInl:
			n.row.Inline = "(partial-inline)"
		case n.inl:
			n.row.Inline = "(inline)"
		}
		t.Rows = append(t.Rows, n.row)
	}
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	sort.SliceStable(t.Rows, func(i, j int) bool {
		a, b := t.Rows[i], t.Rows[j]
		first, second := [2]int64{abs(a.Flat), abs(b.Flat)}, [2]int64{abs(a.Cum), abs(b.Cum)}
		if opts.Cum {
			first, second = second, first
		}
		if first[0] != first[1] {
			return first[0] > first[1]
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return second[0] > second[1]
	})
	return t, nil
}

// Write prints the table as `pprof -top` does: a header, then flat,
// flat%, sum%, cum, cum% and the name; n > 0 keeps the first n rows.
func Write(w io.Writer, t *Table, n int) error {
	rows := t.Rows
	if n > 0 && n < len(rows) {
		rows = rows[:n]
	}
	unit := outputUnit(rows, t.Total, t.Unit)
	format := func(v int64) string { return label(v, t.Unit, unit) }
	var shown int64
	for _, r := range rows {
		shown += r.Flat
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Type: %s\n", t.Type)
	fmt.Fprintf(&b, "Showing nodes accounting for %s, %s of %s total\n", format(shown),
		strings.TrimSpace(percentage(shown, t.Total)), format(t.Total))
	if len(rows) < len(t.Rows) {
		fmt.Fprintf(&b, "Showing top %d nodes out of %d\n", len(rows), len(t.Rows))
	}
	fmt.Fprintf(&b, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum")
	var sum int64
	for _, r := range rows {
		sum += r.Flat
		inl := ""
		if r.Inline != "" {
			inl = " " + r.Inline
		}
		fmt.Fprintf(&b, "%10s %s %s %10s %s  %s%s\n", format(r.Flat), percentage(r.Flat, t.Total),
			percentage(sum, t.Total), format(r.Cum), percentage(r.Cum, t.Total), r.Name, inl)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// percentage is value as a percentage of total, at least two digits.
func percentage(v, total int64) string {
	var r float64
	if total != 0 {
		r = math.Abs(float64(v)/float64(total)) * 100
	}
	switch {
	case r >= 99.95 && r <= 100.05:
		return "  100%"
	case r >= 1:
		return fmt.Sprintf("%5.2f%%", r)
	default:
		return fmt.Sprintf("%5.2g%%", r)
	}
}
