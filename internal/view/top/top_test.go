package top_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/viewtest"
	"github.com/pprofx/pprofx/internal/view/top"
)

// table returns the rows of a -top report: the lines after the column
// header.
func table(t *testing.T, out string) []string {
	t.Helper()
	_, rows, ok := strings.Cut(out, "      flat  flat%   sum%        cum   cum%\n")
	if !ok {
		t.Fatalf("no table in:\n%s", out)
	}
	return strings.Split(strings.TrimSuffix(rows, "\n"), "\n")
}

// TestMatchesPprofTop: for every real fixture and every sample type, the
// table is the one `go tool pprof -top` prints (all rows: -nodefraction=0),
// with -edgefraction=0 and with pprof's default 0.001 (which drops the
// inline marks of light edges),
// line for line: same functions, order, values, percentages, inline marks.
// The numbers are also compared unscaled (-unit), row by row.
func TestMatchesPprofTop(t *testing.T) {
	for _, fx := range viewtest.Fixtures(t) {
		p := fx.Profile
		for i, st := range p.SampleTypes {
			typ, unit := p.String(st.Type), p.String(st.Unit)
			for _, c := range []struct {
				cum bool
				ef  float64
			}{{false, 0}, {true, 0}, {false, top.DefaultEdgeFraction}, {true, top.DefaultEdgeFraction}} {
				cum := c.cum
				t.Run(fmt.Sprintf("%s/%s/cum=%v/edgefraction=%v", fx.Name, typ, cum, c.ef), func(t *testing.T) {
					t.Parallel()
					tab, err := top.Compute(p, top.Options{SampleType: typ, Cum: cum, EdgeFraction: c.ef})
					if err != nil {
						t.Fatal(err)
					}
					var buf bytes.Buffer
					if err := top.Write(&buf, tab, 0); err != nil {
						t.Fatal(err)
					}
					args := []string{"-top", "-nodefraction=0", "-edgefraction=" + strconv.FormatFloat(c.ef, 'g', -1, 64), "-sample_index=" + strconv.Itoa(i)}
					if cum {
						args = append(args, "-cum")
					}
					want := table(t, viewtest.Pprof(t, append(args, fx.Pprof)...))
					got := table(t, buf.String())
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("table differs\npprofx:\n%s\npprof:\n%s", strings.Join(got[:min(8, len(got))], "\n"), strings.Join(want[:min(8, len(want))], "\n"))
					}
					// Unscaled numbers.
					raw := table(t, viewtest.Pprof(t, append(append(args, viewtest.UnitFlag(unit)...), fx.Pprof)...))
					if len(raw) != len(tab.Rows) {
						t.Fatalf("%d rows, pprof %d", len(tab.Rows), len(raw))
					}
					for j, l := range raw {
						f := strings.Fields(l)
						r := tab.Rows[j]
						if flat, c := viewtest.ParseValue(t, f[0]), viewtest.ParseValue(t, f[3]); flat != r.Flat || c != r.Cum {
							t.Errorf("row %d %s: flat %d cum %d, pprof %q", j, r.Name, r.Flat, r.Cum, l)
						}
					}
				})
			}
		}
	}
}
