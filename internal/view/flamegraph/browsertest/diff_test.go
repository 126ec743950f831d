package browsertest

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/diff"
	"github.com/pprofx/pprofx/internal/view/callstacks"
	"github.com/pprofx/pprofx/internal/view/flamegraph"
)

// pathSums sums p's values of sample type ti by every root-first prefix
// of its stacks of frame names (a frame of the flame graph), keyed by the
// names joined with "\x00".
func pathSums(p *model.Profile, ti int) map[string]int64 {
	set := callstacks.Aggregate(p, []int{ti}, callstacks.Options{})
	out := map[string]int64{}
	for k := 0; k < set.Len(); k++ {
		var key string
		for d, f := range set.Stack(k) {
			if d > 0 {
				key += "\x00"
			}
			key += set.Name(f)
			out[key] += set.Values[0][k]
		}
	}
	return out
}

// framePaths names each drawn frame by its path from the root: the
// frame one row nearer the root that holds its middle is its parent.
func framePaths(rs []rect) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		if r.Depth < 0 || r.Merged {
			continue
		}
		path := r.Name
		cur := r
		for d := r.Depth - 1; d >= 0; d-- {
			mid := cur.X + cur.W/2
			for _, q := range rs {
				if q.Depth == d && !q.Merged && q.X <= mid && mid < q.X+math.Max(q.W, 1) {
					cur = q
					break
				}
			}
			path = cur.Name + "\x00" + path
		}
		out[i] = path
	}
	return out
}

// pixels reads the colour the canvas shows one pixel below the top of
// each frame (above its label) in the middle.
func (pg *page) pixels(rs []rect) [][3]int {
	pg.t.Helper()
	var pts []float64
	for _, r := range rs {
		pts = append(pts, r.X+r.W/2, r.Y+1)
	}
	var out [][3]int
	// The canvas copied to one made for reading: reading the page's own
	// again and again makes Chromium warn on the console.
	js := fmt.Sprintf(`(()=>{const c=document.getElementById('fg'),d=window.devicePixelRatio||1,p=%s,o=[];
const t=document.createElement('canvas');t.width=c.width;t.height=c.height;
const x=t.getContext('2d',{willReadFrequently:true});x.drawImage(c,0,0);const im=x.getImageData(0,0,c.width,c.height);
for(let i=0;i<p.length;i+=2){const k=4*(Math.floor(p[i+1]*d)*c.width+Math.floor(p[i]*d));o.push([im.data[k],im.data[k+1],im.data[k+2]])}return o})()`,
		jsonFloats(pts))
	pg.eval(js, &out)
	return out
}

func jsonFloats(v []float64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%g", x)
	}
	b.WriteByte(']')
	return b.String()
}

type diffState struct {
	Base, New           string
	BaseTotal, NewTotal float64
}

// checkColours: every frame drawn wide enough, the root included, has
// NEW's value and BASE's over its path as the inputs have them, and is
// red where it grew, blue where it shrank, grey where equal. It returns
// how many grew and shrank.
func checkColours(t *testing.T, pg *page, pb, pn *model.Profile, ti int) (grew, shrank int) {
	t.Helper()
	rs := pg.drawn()
	var base []float64
	pg.eval("window.pprofx.baseValues()", &base)
	wantNew, wantBase := pathSums(pn, ti), pathSums(pb, ti)
	paths := framePaths(rs)
	px := pg.pixels(rs)
	for i, r := range rs {
		if r.Merged || r.Matched || r.W < 4 {
			continue
		}
		nv, bv := float64(wantNew[paths[i]]), float64(wantBase[paths[i]])
		if r.Depth < 0 {
			nv, bv = totals(pn)[ti], totals(pb)[ti]
		}
		if r.Value != nv || base[i] != bv {
			t.Errorf("frame %q: page NEW %v BASE %v, inputs %v %v", strings.ReplaceAll(paths[i], "\x00", ";"), r.Value, base[i], nv, bv)
			continue
		}
		c := px[i]
		switch {
		case nv > bv*1.01:
			grew++
			if c[0] <= c[2] {
				t.Errorf("frame %q grew %v -> %v and is rgb%v, not red", r.Name, bv, nv, c)
			}
		case nv < bv*0.99:
			shrank++
			if c[2] <= c[0] {
				t.Errorf("frame %q shrank %v -> %v and is rgb%v, not blue", r.Name, bv, nv, c)
			}
		case nv == bv:
			if c[0] != c[1] || c[1] != c[2] {
				t.Errorf("frame %q did not change (%v) and is rgb%v, not grey", r.Name, nv, c)
			}
		}
	}
	return grew, shrank
}

// TestDiff: pprofx's differential flame graph of two CPU profiles of one
// program (corpus/cpu-00 as BASE, cpu-01 as NEW) loads offline with no
// console error; every frame is sized by NEW and coloured by the sign of
// its change from BASE, the pixels on the canvas read back; both totals
// and the legend are shown; zoom, search and the sample type selector
// keep all of that.
func TestDiff(t *testing.T) {
	pb, pn := read(t, "corpus/cpu-00.pb.gz"), read(t, "corpus/cpu-01.pb.gz")
	d, err := diff.Diff(pb, pn, diff.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := flamegraph.Encode(&buf, d, flamegraph.Options{Base: diff.BaseSamples(d),
		BaseName: "cpu-00.pb.gz", NewName: "cpu-01.pb.gz"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"src=", "href=", "url(", "@import", "fetch(", "XMLHttpRequest", "http://", "https://"} {
		if strings.Contains(buf.String(), bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	file := filepath.Join(t.TempDir(), "diff.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	pg := open(t, ctx, file)
	def, _ := callstacks.SampleIndex(pn, "")
	tb, tn := totals(pb), totals(pn)

	var ds diffState
	pg.eval("window.pprofx.diff()", &ds)
	if ds.BaseTotal != tb[def] || ds.NewTotal != tn[def] || ds.Base != "cpu-00.pb.gz" || ds.New != "cpu-01.pb.gz" {
		t.Errorf("page's totals %+v; want BASE %v, NEW %v", ds, tb[def], tn[def])
	}
	var status, legend string
	pg.eval("document.getElementById('status').textContent", &status)
	pg.eval("document.getElementById('legend').textContent", &legend)
	ms := func(v float64) string { return fmt.Sprintf("%gms", v/1e6) }
	if !strings.Contains(status, "NEW total "+ms(tn[def])) || !strings.Contains(status, "BASE total "+ms(tb[def])) {
		t.Errorf("status %q does not show both totals (%s, %s)", status, ms(tn[def]), ms(tb[def]))
	}
	if !strings.Contains(legend, "grew") || !strings.Contains(legend, "shrank") || !strings.Contains(legend, "cpu-00.pb.gz") {
		t.Errorf("legend %q", legend)
	}
	if out := os.Getenv("PPROFX_SCREENSHOT_DIFF"); out != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	grew, shrank := checkColours(t, pg, pb, pn, def)
	t.Logf("%s: %d frames grew, %d shrank", pn.String(pn.SampleTypes[def].Type), grew, shrank)
	if grew == 0 || shrank == 0 {
		t.Errorf("%d frames drawn red, %d blue: the pair does not test both colours", grew, shrank)
	}

	// Zoom into the widest frame at depth 1: it fills the canvas, the
	// status shows its change, colours still follow the sign.
	var target rect
	for _, r := range pg.drawn() {
		if r.Depth == 1 && !r.Merged && r.W > target.W {
			target = r
		}
	}
	pg.clickFrame(target)
	st := pg.state()
	if st.Zoom == nil || st.Zoom.Name != target.Name {
		t.Fatalf("clicked %q: zoom is %+v", target.Name, st.Zoom)
	}
	pg.eval("document.getElementById('status').textContent", &status)
	if !strings.Contains(status, "zoomed to "+target.Name+": BASE ") {
		t.Errorf("status after zoom: %q", status)
	}
	checkColours(t, pg, pb, pn, def)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#reset"))); err != nil {
		t.Fatal(err)
	}

	// Search: matched frames are highlighted, the match summed over NEW.
	const fn = "compress/flate.(*compressor).findMatch"
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#search"), `findMatch`)); err != nil {
		t.Fatal(err)
	}
	st = pg.state()
	highlighted := 0
	for _, r := range pg.drawn() {
		if r.Matched {
			highlighted++
			if r.Name != fn {
				t.Errorf("%q highlighted", r.Name)
			}
		}
	}
	if highlighted == 0 || st.Matched <= 0 || st.Matched > tn[def] {
		t.Errorf("search: %d highlighted, matched %v", highlighted, st.Matched)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](
		`(()=>{const s=document.getElementById('search');s.value='';s.dispatchEvent(new Event('input'))})()`)); err != nil {
		t.Fatal(err)
	}

	// The other sample type: both totals follow, colours too.
	other := 1 - def
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#type"), fmt.Sprint(other)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('type').dispatchEvent(new Event('change'))`)); err != nil {
		t.Fatal(err)
	}
	pg.eval("window.pprofx.diff()", &ds)
	if ds.BaseTotal != tb[other] || ds.NewTotal != tn[other] || tb[other] == tb[def] {
		t.Errorf("after switching to type %d: totals %+v, want BASE %v NEW %v", other, ds, tb[other], tn[other])
	}
	checkColours(t, pg, pb, pn, other)
	pg.noNetwork()
	pg.checkConsole()
}
