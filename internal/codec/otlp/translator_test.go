package otlp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// translatorFixture is one output of the collector-contrib pprof
// translator (testdata/otlp-dev/translator, provenance in
// testdata/README.md) and the pprof file it was made from.
type translatorFixture struct {
	name string // testdata/otlp-dev/translator/NAME.otlp
	src  string // under testdata/
}

// translatorFixtures: every real pprof fixture the translator converts.
// The translator panics on any sample label (a label's value slice is its
// map key), so for the labelled fixtures (go/cpu, go/goroutine, go/heap,
// pprof/cpu-merged, pprof/heap-lines) its input is the pprof tool's copy
// without labels (the NAME-nolabels.pb.gz beside the outputs).
var translatorFixtures = []translatorFixture{
	{"block", "go/block.pb.gz"},
	{"mutex", "go/mutex.pb.gz"},
	{"threadcreate", "go/threadcreate.pb.gz"},
	{"gperftools-symbolized", "pprof/gperftools-symbolized.pb.gz"},
	{"gperftools-stripped", "pprof/gperftools-stripped.pb.gz"},
	{"cpu-nolabels", "otlp-dev/translator/cpu-nolabels.pb.gz"},
	{"cpu-merged-nolabels", "otlp-dev/translator/cpu-merged-nolabels.pb.gz"},
	{"heap-nolabels", "otlp-dev/translator/heap-nolabels.pb.gz"},
	{"goroutine-nolabels", "otlp-dev/translator/goroutine-nolabels.pb.gz"},
}

// translatorSchemaURL is what the translator writes as the resource's and
// the scope's schema URL (go.opentelemetry.io/otel/semconv/v1.39.0).
const translatorSchemaURL = "https://opentelemetry.io/schemas/1.39.0"

func (f translatorFixture) read(t testing.TB) (otlpData, src []byte) {
	t.Helper()
	otlpData, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "otlp-dev", "translator", f.name+".otlp"))
	if err != nil {
		t.Fatal(err)
	}
	src, err = os.ReadFile(filepath.Join("..", "..", "..", "testdata", filepath.FromSlash(f.src)))
	if err != nil {
		t.Fatal(err)
	}
	return otlpData, src
}

// translatorLineOrder sorts a location's lines as the translator does
// before it writes them (its linesToString: by line, then column, then
// function id, a line without a function first): the one thing it loses
// of what these fixtures hold. It returns how many locations changed.
func translatorLineOrder(p *gp.Profile) int {
	changed := 0
	for _, l := range p.Location {
		before := slices.Clone(l.Line)
		slices.SortFunc(l.Line, func(a, b gp.Line) int {
			if a.Line != b.Line {
				return int(a.Line - b.Line)
			}
			if a.Column != b.Column {
				return int(a.Column - b.Column)
			}
			switch {
			case a.Function == nil && b.Function == nil:
				return 0
			case a.Function == nil:
				return -1
			case b.Function == nil:
				return 1
			}
			return int(a.Function.ID - b.Function.ID)
		})
		if !slices.Equal(before, l.Line) {
			changed++
		}
	}
	return changed
}

// hasEmptyFunction: a line of p names a Function whose every field is
// empty (google/pprof's reading of a frame nothing could name).
func hasEmptyFunction(p *gp.Profile) bool {
	for _, f := range p.Function {
		if f.Name == "" && f.SystemName == "" && f.Filename == "" && f.StartLine == 0 {
			return true
		}
	}
	return false
}

// TestTranslatorOutputs: pprofx reads each real output of the
// collector-contrib translator as one profile (the per-type Profiles
// joined) that is google/pprof's reading of the source pprof, but for
// what the translator itself changes: the order of a location's lines
// (translatorLineOrder), a function with every field empty written as the
// zero Function (pprof then names an empty function again), and the
// resource's and scope's schema URL it adds. Nothing else is allowed.
func TestTranslatorOutputs(t *testing.T) {
	sorted, emptyFn, severalPerKey := 0, 0, 0
	for _, f := range translatorFixtures {
		t.Run(f.name, func(t *testing.T) {
			data, src := f.read(t)
			want, err := gp.ParseData(src)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := Messages(data, DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sp := msgs[0].ResourceProfiles[0].ScopeProfiles[0]
			if len(sp.Profiles) != len(want.SampleType) {
				t.Fatalf("%d Profiles, want one per sample type (%d)", len(sp.Profiles), len(want.SampleType))
			}
			keys := map[string]int{}
			for _, s := range sp.Profiles[0].Samples {
				keys[fmt.Sprint(s.StackIndex, s.AttributeIndices)]++
			}
			if len(keys) < len(sp.Profiles[0].Samples) {
				severalPerKey++
			}
			ps, err := Decode(data, DecodeOptions{Warn: func(s string) { t.Errorf("warning: %s", s) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 {
				t.Fatalf("%d profiles, want the %d per-type Profiles joined into 1", len(ps), len(sp.Profiles))
			}
			p := ps[0]
			for what, url := range map[string]string{"resource": p.Resource.SchemaURL, "scope": p.Scope.SchemaURL} {
				if url != translatorSchemaURL {
					t.Errorf("%s schema URL %q, want the translator's %q", what, url, translatorSchemaURL)
				}
			}
			p.Resource.SchemaURL, p.Scope.SchemaURL = "", ""
			n := translatorLineOrder(want)
			t.Logf("the translator reordered the lines of %d of %d locations", n, len(want.Location))
			sorted += n
			empty := hasEmptyFunction(want)
			if empty {
				emptyFn++
			}
			got := translatorToPprof(t, p, empty)
			if d := pprofcmp.Diff(want, got); d != "" {
				t.Error(d)
			}
		})
	}
	// The allowances are each needed by some fixture, and the join is
	// tried with several samples per key: else the test tests less than
	// it says.
	if sorted == 0 || emptyFn == 0 || severalPerKey == 0 {
		t.Errorf("locations reordered %d, fixtures with an empty function %d, with several samples per key %d: want each > 0",
			sorted, emptyFn, severalPerKey)
	}
}

// translatorToPprof is toPprof, except that the pprof writer's one warning
// about lines without a function is expected exactly when the source has
// an all-empty function (the translator writes it as the zero Function).
func translatorToPprof(t *testing.T, p *model.Profile, emptyFn bool) *gp.Profile {
	t.Helper()
	pprofextended.FoldForPprof(p, func(s string) { t.Errorf("FoldForPprof warned: %s", s) })
	var warned []string
	var out bytes.Buffer
	if err := pprof.Encode(&out, p, pprof.EncodeOptions{Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	var want []string
	if emptyFn {
		want = []string{"pprof rejects a line without a function: such lines name an empty function"}
	}
	if !slices.Equal(warned, want) {
		t.Errorf("pprof writer warned %q, want %q", warned, want)
	}
	got, err := gp.ParseData(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestTranslatorSize: pprofx's .otlp of each fixture's source, gzipped,
// is at most 0.95 times the translator's output gzipped the same way
// (compress/gzip's default level for both). The ratio to gzipped pprof is
// logged beside it (go test -v -run TestTranslatorSize).
func TestTranslatorSize(t *testing.T) {
	var table strings.Builder
	table.WriteString("| fixture | pprofx .otlp.gz | translator .otlp.gz | pprofx / translator | pprof.gz | pprofx / pprof |\n|---|---|---|---|---|---|\n")
	for _, f := range translatorFixtures {
		data, src := f.read(t)
		m, err := pprof.Decode(src)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Encode(&out, []*model.Profile{m}, EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		px, tr, pp := gzipSize(out.Bytes()), gzipSize(data), gzipSize(gunzip(t, src))
		ratio := float64(px) / float64(tr)
		fmt.Fprintf(&table, "| %s | %d | %d | %.3f | %d | %.3f |\n", f.name, px, tr, ratio, pp, float64(px)/float64(pp))
		if ratio > 0.95 {
			t.Errorf("%s: gzipped .otlp %d bytes is %.3f of the translator's %d, want at most 0.95", f.name, px, ratio, tr)
		}
	}
	t.Log("\n" + table.String())
}
