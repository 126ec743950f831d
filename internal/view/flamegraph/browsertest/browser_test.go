package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/view/callstacks"
	"github.com/pprofx/pprofx/internal/view/flamegraph"
	"github.com/pprofx/pprofx/internal/view/top"
)

var root = filepath.Join("..", "..", "..", "..")

func chromium(t *testing.T) string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH (CI installs it: .ci/run)")
	}
	t.Skip("no chromium on PATH")
	return ""
}

// browser starts headless chromium with no network: every host resolves
// to nothing and every request goes to a proxy that does not exist.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel3)
	return ctx
}

// page is one loaded flame graph, with the console messages it wrote.
type page struct {
	t   *testing.T
	ctx context.Context

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

func open(t *testing.T, ctx context.Context, file string) *page {
	t.Helper()
	pg := &page{t: t, ctx: ctx}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			pg.mu.Lock()
			pg.console = append(pg.console, m)
			pg.mu.Unlock()
		}
	}()
	abs, _ := filepath.Abs(file)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs)); err != nil {
		t.Fatal(err)
	}
	return pg
}

func (pg *page) eval(expr string, out any) {
	pg.t.Helper()
	raw, err := chromedp.Run(pg.ctx, chromedp.Evaluate[[]byte]("JSON.stringify("+expr+")"))
	if err != nil {
		pg.t.Fatalf("%s: %v", expr, err)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		pg.t.Fatalf("%s: %v", expr, err)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		pg.t.Fatalf("%s: %v", expr, err)
	}
}

type state struct {
	Type     int
	TypeName string
	Total    float64
	Icicle   bool
	Zoom     *struct {
		Name  string
		Value float64
		Depth int
	}
	Query    string
	Matched  float64
	Rows     int
	RenderMs float64
	LoadMs   float64
	Stacks   int
	Frames   int
}

type rect struct {
	Name     string
	Value    float64
	Depth    int
	X, W, Y  float64
	Merged   bool
	Ancestor bool
	Matched  bool
}

func (pg *page) state() state {
	var s state
	pg.eval("window.pprofx.state()", &s)
	return s
}

func (pg *page) drawn() []rect {
	var r []rect
	pg.eval("window.pprofx.drawn()", &r)
	return r
}

// sumAt sums the frames drawn at depth d, merged blocks included,
// ancestors of the zoomed frame not.
func sumAt(rs []rect, d int) (sum float64, n int) {
	for _, r := range rs {
		if r.Depth == d && !r.Ancestor {
			sum += r.Value
			n++
		}
	}
	return sum, n
}

func (pg *page) clickFrame(r rect) {
	pg.t.Helper()
	var c struct{ X, Y float64 }
	pg.eval("(()=>{const b=document.getElementById('fg').getBoundingClientRect();return {x:b.left,y:b.top}})()", &c)
	if err := chromedp.Do(pg.ctx, chromedp.MouseClickXY(c.X+r.X+r.W/2, c.Y+r.Y+8)); err != nil {
		pg.t.Fatal(err)
	}
}

func (pg *page) checkConsole() {
	pg.t.Helper()
	time.Sleep(100 * time.Millisecond)
	pg.mu.Lock()
	defer pg.mu.Unlock()
	for _, m := range pg.console {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
			pg.t.Errorf("console %s: %s", m.Type, m.Text)
		}
	}
}

func (pg *page) noNetwork() {
	pg.t.Helper()
	var res []string
	pg.eval("performance.getEntriesByType('resource').map(e=>e.name)", &res)
	if len(res) > 0 {
		pg.t.Errorf("the page loaded resources: %v", res)
	}
}

func read(t *testing.T, name string) *model.Profile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	in, err := formats.Read(bytes.NewReader(data), formats.ReadOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return in.Items[0].Profile
}

func write(t *testing.T, p *model.Profile, title string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := flamegraph.Encode(&buf, p, flamegraph.Options{Title: title}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, bad := range []string{"src=", "href=", "url(", "@import", "fetch(", "XMLHttpRequest", "http://", "https://"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	f := filepath.Join(t.TempDir(), "fg.html")
	if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// totals are each sample type's total, summed straight from the samples.
func totals(p *model.Profile) []float64 {
	out := make([]float64, len(p.SampleTypes))
	for _, s := range p.Samples {
		for i, v := range s.Values() {
			out[i] += float64(v)
		}
	}
	return out
}

// TestGoCPU: the Go CPU fixture's flame graph loads offline with no console
// error; the frames drawn sum to the total; the icicle toggle turns it
// over; a click zooms; search sums a function as pprof's cum does; the
// sample type selector changes the totals.
func TestGoCPU(t *testing.T) {
	p := read(t, "go/cpu.pb.gz")
	file := write(t, p, "go/cpu.pb.gz")
	ctx := browser(t)
	pg := open(t, ctx, file)
	tot := totals(p)
	def, _ := callstacks.SampleIndex(p, "")

	st := pg.state()
	t.Logf("loaded %d stacks in %.1f ms (render %.1f ms), %d frames drawn", st.Stacks, st.LoadMs, st.RenderMs, st.Frames)
	if st.Type != def || st.Total != tot[def] {
		t.Fatalf("shows type %d total %v; want type %d total %v", st.Type, st.Total, def, tot[def])
	}
	rs := pg.drawn()
	if sum, n := sumAt(rs, 0); sum != tot[def] || n < 2 {
		t.Errorf("the %d root frames drawn sum to %v, want %v", n, sum, tot[def])
	}

	// Screenshot of the whole page, for the record.
	if out := os.Getenv("PPROFX_SCREENSHOT"); out != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", out, len(png))
	}

	// Flame (root at the bottom) to icicle (root at the top).
	yRoot := func(rs []rect) float64 {
		for _, r := range rs {
			if r.Depth == 0 && !r.Merged {
				return r.Y
			}
		}
		t.Fatal("no root frame drawn")
		return 0
	}
	before := yRoot(rs)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#flip"))); err != nil {
		t.Fatal(err)
	}
	rs = pg.drawn()
	if !pg.state().Icicle || yRoot(rs) != 16 || before <= 16 {
		t.Errorf("icicle toggle: root frames at y=%v, before %v", yRoot(rs), before)
	}

	// Click the widest frame at depth 1.
	var target rect
	for _, r := range rs {
		if r.Depth == 1 && !r.Merged && r.W > target.W {
			target = r
		}
	}
	pg.clickFrame(target)
	st = pg.state()
	if st.Zoom == nil || st.Zoom.Name != target.Name || st.Zoom.Value != target.Value {
		t.Fatalf("clicked %q (%v): zoom is %+v", target.Name, target.Value, st.Zoom)
	}
	rs = pg.drawn()
	var width float64
	pg.eval("document.getElementById('fg').clientWidth", &width)
	for _, r := range rs {
		if r.Name == target.Name && r.Depth == 1 && r.W != width {
			t.Errorf("the zoomed frame is %v px wide, the canvas %v", r.W, width)
		}
	}
	if sum, _ := sumAt(rs, 2); sum > target.Value || sum == 0 {
		t.Errorf("children of the zoomed frame sum to %v, its value is %v", sum, target.Value)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#reset"))); err != nil {
		t.Fatal(err)
	}
	if st := pg.state(); st.Zoom != nil {
		t.Errorf("reset left zoom %+v", st.Zoom)
	}

	// Search: the matched total of a function is pprof's cum for it.
	const fn = "crypto/sha256.Sum256"
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#search"), strings.ReplaceAll(fn, ".", `\.`))); err != nil {
		t.Fatal(err)
	}
	cum := func(ti int) float64 {
		tab, err := top.Compute(p, top.Options{SampleType: fmt.Sprint(ti)})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tab.Rows {
			if r.Name == fn {
				return float64(r.Cum)
			}
		}
		t.Fatalf("%s not in the profile", fn)
		return 0
	}
	st = pg.state()
	if st.Matched != cum(def) || st.Matched == 0 {
		t.Errorf("search %q matched %v, pprof's cum is %v", fn, st.Matched, cum(def))
	}
	highlighted := 0
	for _, r := range pg.drawn() {
		if r.Matched {
			highlighted++
			if r.Name != fn {
				t.Errorf("%q highlighted", r.Name)
			}
		}
	}
	if highlighted == 0 {
		t.Errorf("search highlighted nothing")
	}
	var statusText string
	pg.eval("document.getElementById('status').textContent", &statusText)
	if !strings.Contains(statusText, "matched") {
		t.Errorf("status line %q does not show the match", statusText)
	}

	// Switch the sample type.
	other := 1 - def
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#type"), fmt.Sprint(other)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('type').dispatchEvent(new Event('change'))`)); err != nil {
		t.Fatal(err)
	}
	st = pg.state()
	t.Logf("render after switching the sample type: %.1f ms", st.RenderMs)
	if st.Type != other || st.Total != tot[other] || st.Total == tot[def] {
		t.Errorf("after switching to type %d: type %d total %v, want %v", other, st.Type, st.Total, tot[other])
	}
	if sum, _ := sumAt(pg.drawn(), 0); sum != tot[other] {
		t.Errorf("after switching, the root frames sum to %v, want %v", sum, tot[other])
	}
	if st.Matched != cum(other) {
		t.Errorf("after switching, search matched %v, pprof's cum is %v", st.Matched, cum(other))
	}
	pg.noNetwork()
	pg.checkConsole()
}

// TestFixturesEveryType: each real fixture, each sample type: the frames
// drawn at the root sum to the total.
func TestFixturesEveryType(t *testing.T) {
	ctx := browser(t)
	for _, name := range []string{"go/heap.pb.gz", "go/mutex.pb.gz", "go/block.pb.gz", "go/goroutine.pb.gz",
		"pprof/cpu-merged.pb.gz", "pprof/heap-lines.pb.gz", "gperftools/le64-1000hz-4t.prof", "gperftools/le32-100hz.prof"} {
		p := read(t, name)
		pg := open(t, ctx, write(t, p, name))
		tot := totals(p)
		for ti := range p.SampleTypes {
			if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#type"), fmt.Sprint(ti)),
				chromedp.Evaluate[chromedp.Void](`document.getElementById('type').dispatchEvent(new Event('change'))`)); err != nil {
				t.Fatal(err)
			}
			st := pg.state()
			sum, _ := sumAt(pg.drawn(), 0)
			if st.Total != tot[ti] || sum != tot[ti] {
				t.Errorf("%s type %d: total %v, root frames sum %v; want %v", name, ti, st.Total, sum, tot[ti])
			}
		}
		pg.noNetwork()
		pg.checkConsole()
	}
}

// TestLarge: 100,000 distinct stacks of depth 32 over 67,000 functions (the
// shape of the gperftools benchmark file) load, render and zoom; the
// frames drawn still sum to the total, tiny frames merged.
func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large profile")
	}
	p := largeProfile(100_000, 32, 67_000)
	file := write(t, p, "100k distinct stacks")
	if st, err := os.Stat(file); err == nil {
		t.Logf("HTML of 100k stacks: %d bytes", st.Size())
	}
	ctx := browser(t)
	pg := open(t, ctx, file)
	st := pg.state()
	t.Logf("100k stacks: load %.0f ms, first render %.0f ms, %d frames drawn", st.LoadMs, st.RenderMs, st.Frames)
	rs := pg.drawn()
	sum, _ := sumAt(rs, 0)
	if tot := totals(p); st.Total != tot[0] || sum != tot[0] || st.Stacks != 100_000 {
		t.Errorf("total %v, root frames sum %v, stacks %d; want %v, 100000", st.Total, sum, st.Stacks, tot[0])
	}
	merged := 0
	for _, r := range rs {
		if r.Merged {
			merged++
		}
	}
	if merged == 0 || st.Frames > 20_000 {
		t.Errorf("%d merged blocks, %d frames drawn: tiny frames are not merged", merged, st.Frames)
	}
	var target rect
	for _, r := range rs {
		if !r.Merged && r.Depth == 0 && r.W > target.W {
			target = r
		}
	}
	if target.W > 0 {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#flip"))); err != nil {
			t.Fatal(err)
		}
		for _, r := range pg.drawn() {
			if r.Name == target.Name && r.Depth == 0 {
				target = r
			}
		}
		pg.clickFrame(target)
		if st := pg.state(); st.Zoom == nil || st.Zoom.Name != target.Name {
			t.Errorf("zoom into %q: %+v", target.Name, st.Zoom)
		} else {
			t.Logf("zoom render %.1f ms", st.RenderMs)
		}
	}
	pg.checkConsole()
}

// largeProfile makes stacks distinct stacks of the given depth over funcs
// functions, with skewed values, deterministically.
func largeProfile(stacks, depth, funcs int) *model.Profile {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	for i := 0; i < funcs; i++ {
		p.Functions = append(p.Functions, model.Function{Name: b.String(fmt.Sprintf("pkg%d.fn%05d", i%97, i))})
		p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: int32(i)})
	}
	r := rand.New(rand.NewPCG(1, 2))
	frames := make([]int32, depth)
	for s := 0; s < stacks; s++ {
		// A few shared roots, then random frames: like real programs,
		// wide near the leaves.
		for d := 0; d < depth; d++ {
			if d >= depth-3 {
				frames[d] = int32(r.IntN(8 + d))
			} else {
				frames[d] = int32(r.IntN(funcs))
			}
		}
		p.Samples = append(p.Samples, model.NewSample(b.Stack(frames), []int64{int64(1 + r.IntN(20))}))
	}
	return p
}
