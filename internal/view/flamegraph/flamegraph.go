// Package flamegraph writes a profile as one self-contained HTML file: an
// interactive flame graph (every sample type selectable, click to zoom,
// search that highlights and sums matches, tooltips, flame/icicle toggle)
// that needs no network. The renderer (assets/, embedded) is pprofx's own.
package flamegraph

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

//go:embed assets/flamegraph.js
var source string

//go:embed assets/flamegraph.css
var style string

//go:embed assets/diff.css
var diffStyle string

// The renderer's differential parts sit between lines "//diff:begin" and
// "//diff:end": a flame graph of one profile leaves them out, so its
// page is what it was before there were any.
var (
	script     = sections(source, false)
	diffScript = sections(source, true)
)

// sections returns src without the marker lines and, unless diff, without
// what lies between them.
func sections(src string, diff bool) string {
	var b strings.Builder
	in := false
	for line := range strings.SplitAfterSeq(src, "\n") {
		switch strings.TrimSpace(line) {
		case "//diff:begin":
			in = true
			continue
		case "//diff:end":
			in = false
			continue
		}
		if !in || diff {
			b.WriteString(line)
		}
	}
	return b.String()
}

// Options control Encode.
type Options struct {
	// SampleType is shown first ("" = the default sample type, as pprof
	// chooses it); every type can be selected on the page.
	SampleType string
	Lines      bool   // frames named "function file:line"
	Title      string // the page's title; "" = "pprofx flame graph"
	Warn       func(string)

	// Base, when set, makes the page differential: the samples for which
	// it is true are BASE's, their values negated (as pprof -diff_base
	// writes them, labelled pprof::base=true), the others NEW's. Frames
	// are sized by NEW and coloured by the change from BASE.
	Base func(*model.Sample) bool
	// BaseName and NewName name the two profiles in the legend.
	BaseName, NewName string
}

// Encode writes p as an HTML flame graph.
//
// The page carries every distinct stack of frame names once (root first,
// sorted, each stored as the length it shares with the previous one plus
// its own frames) with one value per sample type; the script renders from
// that without building a tree (see assets/flamegraph.js).
func Encode(w io.Writer, p *model.Profile, opts Options) error {
	active, err := callstacks.SampleIndex(p, opts.SampleType)
	if err != nil {
		return err
	}
	nt := len(p.SampleTypes)
	agg, css, js := p, style, script
	if opts.Base != nil {
		agg, css, js = splitBase(p, opts.Base), style+diffStyle, diffScript
	}
	types := make([]int, len(agg.SampleTypes))
	for i := range types {
		types[i] = i
	}
	set := callstacks.Aggregate(agg, types, callstacks.Options{Lines: opts.Lines})
	title := opts.Title
	if title == "" {
		title = "pprofx flame graph"
		if opts.Base != nil {
			title = "pprofx differential flame graph"
		}
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	bw.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	bw.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n")
	bw.WriteString("<title>" + html.EscapeString(title) + "</title>\n<style>\n")
	bw.WriteString(css)
	bw.WriteString("</style>\n</head>\n<body>\n<header><h1>" + html.EscapeString(title) + "</h1>\n")
	bw.WriteString(`<label>Sample type <select id="type"></select></label>
<input type="search" id="search" placeholder="Search (regexp)" aria-label="search">
<button id="reset" type="button">Reset zoom</button>
<button id="flip" type="button">Icicle</button>
</header>
<div id="status"></div>
<div id="wrap"><canvas id="fg"></canvas></div>
<div id="tip"></div>
<script type="application/json" id="pprofx-data">`)
	var names *[2]string
	if opts.Base != nil {
		names = &[2]string{opts.BaseName, opts.NewName}
	}
	if err := writeData(bw, p, set, nt, active, names); err != nil {
		return err
	}
	bw.WriteString("</script>\n<script>\n")
	bw.WriteString(js)
	bw.WriteString("</script>\n</body>\n</html>\n")
	if opts.Warn != nil && (len(p.LabelSets) > 1 || len(p.Mappings) > 0) {
		opts.Warn("the flame graph shows stacks of frame names: labels, addresses and mappings are not in it")
	}
	return bw.Flush()
}

// splitBase returns p with twice its sample types: the first NEW's values,
// the second BASE's, made positive. It shares p's tables.
func splitBase(p *model.Profile, isBase func(*model.Sample) bool) *model.Profile {
	nt := len(p.SampleTypes)
	q := *p
	q.SampleTypes = append(append([]model.ValueType(nil), p.SampleTypes...), p.SampleTypes...)
	q.Samples = make([]model.Sample, len(p.Samples))
	vals := make([]int64, 2*nt*len(p.Samples))
	for i := range p.Samples {
		s := &p.Samples[i]
		v := vals[2*nt*i : 2*nt*(i+1) : 2*nt*(i+1)]
		if isBase(s) {
			for t, x := range s.Values() {
				if t < nt {
					v[nt+t] = -x
				}
			}
		} else {
			copy(v[:nt], s.Values())
		}
		q.Samples[i] = model.NewSample(s.Stack, v)
	}
	return &q
}

// writeData writes the page's data as JSON (which never holds "</", as
// encoding/json escapes '<'):
//
//	{"names": [...], "pre": [...], "cnt": [...], "fr": [...], "active": i,
//	 "types": [{"name": "cpu/nanoseconds", "unit": "nanoseconds", "values": [...]}]}
//
// Stack k is the first pre[k] frames of stack k-1 followed by cnt[k]
// frames from fr; values[k] is its value. set holds nt sample types of p,
// or, on a differential page (diff names BASE and NEW), 2*nt: NEW's then
// BASE's; then each type also has "base": [...], BASE's values, and the
// data "diff": {"base": name, "new": name}.
func writeData(bw *bufio.Writer, p *model.Profile, set *callstacks.Set, nt, active int, diff *[2]string) error {
	b := make([]byte, 0, 1<<16)
	flush := func() {
		if len(b) > 1<<15 {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, `{"names":[`...)
	for i := range int32(set.NumNames()) {
		if i > 0 {
			b = append(b, ',')
		}
		q, _ := json.Marshal(set.Name(i))
		b = append(b, q...)
		flush()
	}
	n := set.Len()
	pre := make([]int32, n)
	for k := 1; k < n; k++ {
		a, c := set.Stack(k-1), set.Stack(k)
		for pre[k] < int32(min(len(a), len(c))) && a[pre[k]] == c[pre[k]] {
			pre[k]++
		}
	}
	b = append(b, `],"pre":[`...)
	for k := 0; k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(pre[k]), 10)
		flush()
	}
	b = append(b, `],"cnt":[`...)
	for k := 0; k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(len(set.Stack(k))-int(pre[k])), 10)
		flush()
	}
	b = append(b, `],"fr":[`...)
	first := true
	for k := 0; k < n; k++ {
		for _, f := range set.Stack(k)[pre[k]:] {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendInt(b, int64(f), 10)
			flush() // a stack may have millions of frames
		}
	}
	b = append(b, `],"active":`...)
	b = strconv.AppendInt(b, int64(active), 10)
	if diff != nil {
		q, _ := json.Marshal(map[string]string{"base": diff[0], "new": diff[1]})
		b = append(b, `,"diff":`...)
		b = append(b, q...)
	}
	b = append(b, `,"types":[`...)
	for t, ti := range set.Types[:nt] {
		st := p.SampleTypes[ti]
		if t > 0 {
			b = append(b, ',')
		}
		q, _ := json.Marshal(p.String(st.Type) + "/" + p.String(st.Unit))
		b = append(b, `{"name":`...)
		b = append(b, q...)
		q, _ = json.Marshal(p.String(st.Unit))
		b = append(b, `,"unit":`...)
		b = append(b, q...)
		b = append(b, `,"values":[`...)
		for k, v := range set.Values[t] {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, v, 10)
			flush()
		}
		if diff != nil {
			b = append(b, `],"base":[`...)
			for k, v := range set.Values[nt+t] {
				if k > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, v, 10)
				flush()
			}
		}
		b = append(b, "]}"...)
	}
	b = append(b, "]}"...)
	_, err := bw.Write(b)
	return err
}
