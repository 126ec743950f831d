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
		if ti >= len(s.Values()) {
			continue
		}
		v := s.Values()[ti]
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
		for _, l := range ls.Labels() {
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
	g := &graph{p: p, byKey: map[key]int{}, locNodes: make([][]int, len(p.Locations)), locDone: make([]bool, len(p.Locations)),
		edgeInline: map[edge]bool{}, edgeWeight: map[edge]int64{}, seenEdge: map[edge]int{}}
	g.walk(ti)
	if opts.Total != nil {
		t.Total = *opts.Total
	} else if t.Total, err = TotalOf(p, opts.SampleType); err != nil {
		return nil, err
	}
	g.markInline(opts.EdgeFraction)
	t.Rows = g.rows(opts.Cum)
	return t, nil
}

// edge is a call from a node to another (from its caller).
type edge struct{ from, to int }

// graph is pprof's call graph at function granularity, as far as -top
// needs it: nodes with flat and cum values, and the edges into them with
// whether every sample that has an edge has it inside one location.
type graph struct {
	p        *model.Profile
	nodes    []*node
	byKey    map[key]int
	locNodes [][]int // per location, its nodes innermost first
	locDone  []bool

	edgeInline map[edge]bool
	edgeWeight map[edge]int64
	edgeOrder  []edge
	seenEdge   map[edge]int // last sample that counted the edge
	flatSum    int64
}

// nodeOf returns the node of k, made on first use.
func (g *graph) nodeOf(k key) int {
	if i, ok := g.byKey[k]; ok {
		return i
	}
	name := k.name
	if name == "" {
		name = "<unknown>"
		if k.objfile != "" {
			name = "[" + filepath.Base(k.objfile) + "]"
		}
	}
	g.nodes = append(g.nodes, &node{row: Row{Name: name}, key: k, seen: -1})
	g.byKey[k] = len(g.nodes) - 1
	return len(g.nodes) - 1
}

// location returns the nodes of location li, innermost first.
func (g *graph) location(li int32) []int {
	if g.locDone[li] {
		return g.locNodes[li]
	}
	p := g.p
	loc := &p.Locations[li]
	objfile := ""
	if loc.Mapping >= 0 && int(loc.Mapping) < len(p.Mappings) {
		objfile = p.String(p.Mappings[loc.Mapping].File)
	}
	var out []int
	lines := p.LinesOf(loc)
	for _, ln := range lines {
		k := key{objfile: objfile}
		if ln.Function >= 0 && int(ln.Function) < len(p.Functions) {
			if k.name = p.String(p.Functions[ln.Function].Name); k.name != "" {
				k.objfile = ""
			}
		}
		out = append(out, g.nodeOf(k))
	}
	if len(lines) == 0 {
		out = append(out, g.nodeOf(key{objfile: objfile}))
	}
	g.locNodes[li], g.locDone[li] = out, true
	return out
}

// walk adds every sample's value of sample type ti to the nodes and edges
// of its stack: cum once per node and edge a sample, flat to its leaf.
func (g *graph) walk(ti int) {
	p := g.p
	var stack []int32
	for si, s := range p.Samples {
		if ti >= len(s.Values()) {
			continue
		}
		w := s.Values()[ti]
		if w == 0 {
			continue
		}
		stack = p.Stacks.Append(stack[:0], int(s.Stack))
		parent := -1
		for i := len(stack) - 1; i >= 0; i-- {
			ln := g.location(stack[i])
			for ni := len(ln) - 1; ni >= 0; ni-- {
				n := ln[ni]
				if g.nodes[n].seen != si {
					g.nodes[n].seen = si
					g.nodes[n].row.Cum += w
				}
				if parent >= 0 && n != parent {
					g.addEdge(edge{parent, n}, si, w, ni != len(ln)-1)
				}
				parent = n
			}
		}
		if parent >= 0 {
			g.nodes[parent].row.Flat += w
			g.flatSum += w
		}
	}
}

// addEdge counts edge e once for sample si: an edge is inline only if
// every sample that has it has it inside one location.
func (g *graph) addEdge(e edge, si int, w int64, inline bool) {
	if last, ok := g.seenEdge[e]; ok && last == si {
		return
	}
	g.seenEdge[e] = si
	g.edgeWeight[e] += w
	if prev, ok := g.edgeInline[e]; ok {
		g.edgeInline[e] = prev && inline
	} else {
		g.edgeInline[e] = inline
		g.edgeOrder = append(g.edgeOrder, e)
	}
}

// markInline marks the nodes entered by inline and by other edges,
// leaving out edges under pprof's cutoff: fraction of the signed sum of
// flat values.
func (g *graph) markInline(fraction float64) {
	cutoff := int64(float64(g.flatSum) * fraction)
	if cutoff < 0 {
		cutoff = -cutoff
	}
	for _, e := range g.edgeOrder {
		if w := g.edgeWeight[e]; w < 0 && -w < cutoff || w >= 0 && w < cutoff {
			continue
		}
		if g.edgeInline[e] {
			g.nodes[e.to].inl = true
		} else {
			g.nodes[e.to].noInl = true
		}
	}
}

// rows gives the nodes with a value as rows, sorted as pprof sorts them:
// by absolute flat (or cum), then name, then the other.
func (g *graph) rows(byCum bool) []Row {
	var rows []Row
	for _, n := range g.nodes {
		if n.row.Flat == 0 && n.row.Cum == 0 {
			continue
		}
		switch {
		case n.inl && n.noInl:
			n.row.Inline = "(partial-inline)"
		case n.inl:
			n.row.Inline = "(inline)"
		}
		rows = append(rows, n.row)
	}
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		first, second := [2]int64{abs(a.Flat), abs(b.Flat)}, [2]int64{abs(a.Cum), abs(b.Cum)}
		if byCum {
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
	return rows
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
