package folded_test

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

// parseFolded reads folded lines into stack -> total.
func parseFolded(t *testing.T, text string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if l == "" {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseInt(l[i+1:], 10, 64)
		if err != nil {
			t.Fatalf("bad folded line %q", l)
		}
		if _, dup := out[l[:i]]; dup {
			t.Fatalf("stack written twice: %q", l[:i])
		}
		out[l[:i]] = v
	}
	return out
}

var (
	labelLine = regexp.MustCompile(`^\s*\S+:  `)
	addrFrame = regexp.MustCompile(`^0*([0-9a-f]+) (\[.*\]|<unknown>)$`)
)

// pprofTraces sums `go tool pprof -traces` output by stack (root first,
// ';'-joined, "(inline)" dropped), as folded output should.
func pprofTraces(t *testing.T, out string, addresses bool) map[string]int64 {
	t.Helper()
	const sep = "-----------+-------------------------------------------------------"
	blocks := strings.Split(out, sep+"\n")
	sums := map[string]int64{}
	for _, b := range blocks[1:] {
		var frames []string
		var v int64
		seen := false
		for _, l := range strings.Split(strings.TrimSuffix(b, "\n"), "\n") {
			switch {
			case l == "":
			case strings.HasPrefix(l, strings.Repeat(" ", 13)):
				frames = append(frames, strings.TrimSpace(l))
			case !seen && labelLine.MatchString(l):
				// A label of the sample.
			default:
				f := strings.SplitN(strings.TrimLeft(l, " "), "   ", 2)
				if len(f) != 2 {
					t.Fatalf("unexpected pprof line %q", l)
				}
				v = viewtest.ParseValue(t, f[0])
				frames = append(frames, f[1])
				seen = true
			}
		}
		if !seen {
			continue
		}
		for i, f := range frames {
			f = strings.TrimSuffix(f, " (inline)")
			if addresses {
				m := addrFrame.FindStringSubmatch(f)
				if m == nil {
					t.Fatalf("unexpected -addresses frame %q", f)
				}
				f = "0x" + m[1]
				if m[2] != "<unknown>" { // no mapping
					f += " " + m[2]
				}
			}
			frames[i] = f
		}
		for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
			frames[i], frames[j] = frames[j], frames[i]
		}
		sums[strings.Join(frames, ";")] += v
	}
	for k, v := range sums {
		if v == 0 {
			delete(sums, k)
		}
	}
	return sums
}

// TestMatchesPprofTraces: the folded output of every real fixture, for
// every sample type, has the stacks and totals that `go tool pprof
// -traces` prints, summed by stack. A profile without any function name is
// compared with -traces -addresses, frame for frame; in a profile with
// some, pprof names an unsymbolized frame by its binary only, so ours are
// named so too ("0x4011a6 [burn]" -> "[burn]") before comparing.
func TestMatchesPprofTraces(t *testing.T) {
	for _, fx := range viewtest.Fixtures(t) {
		p := fx.Profile
		for i, st := range p.SampleTypes {
			typ, unit := p.String(st.Type), p.String(st.Unit)
			t.Run(fmt.Sprintf("%s/%s", fx.Name, typ), func(t *testing.T) {
				t.Parallel()
				var buf bytes.Buffer
				if err := folded.Encode(&buf, p, folded.WriteOptions{SampleType: typ + "/" + unit}); err != nil {
					t.Fatal(err)
				}
				got := parseFolded(t, buf.String())
				if !fx.Addresses {
					got = project(got)
				}
				args := []string{"-traces", "-sample_index=" + strconv.Itoa(i)}
				if fx.Addresses {
					args = append(args, "-addresses")
				}
				args = append(args, viewtest.UnitFlag(unit)...)
				want := pprofTraces(t, viewtest.Pprof(t, append(args, fx.Pprof)...), fx.Addresses)
				if len(want) == 0 {
					t.Fatalf("pprof printed no stacks")
				}
				compare(t, got, want)
			})
		}
	}
}

var (
	mappedAddr   = regexp.MustCompile(`^0x[0-9a-f]+ (\[.*\])$`)
	unmappedAddr = regexp.MustCompile(`^0x[0-9a-f]+$`)
)

// project names unsymbolized frames as pprof -traces does without
// -addresses ("[burn]", "<unknown>") and sums the stacks that become one.
func project(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		fs := strings.Split(k, ";")
		for i, f := range fs {
			if s := mappedAddr.FindStringSubmatch(f); s != nil {
				fs[i] = s[1]
			} else if unmappedAddr.MatchString(f) {
				fs[i] = "<unknown>"
			}
		}
		out[strings.Join(fs, ";")] += v
	}
	return out
}

// TestLinesMatchPprofTraces: with --lines, frames are "function
// file:line", as `go tool pprof -traces -lines` prints them (default
// sample type of every fixture with function names).
func TestLinesMatchPprofTraces(t *testing.T) {
	for _, fx := range viewtest.Fixtures(t) {
		if fx.Addresses {
			continue
		}
		p := fx.Profile
		t.Run(fx.Name, func(t *testing.T) {
			t.Parallel()
			ti, _ := callstacks.SampleIndex(p, "")
			var buf bytes.Buffer
			if err := folded.Encode(&buf, p, folded.WriteOptions{Lines: true}); err != nil {
				t.Fatal(err)
			}
			got := project(parseFolded(t, buf.String()))
			args := append([]string{"-traces", "-lines", "-sample_index=" + strconv.Itoa(ti)}, viewtest.UnitFlag(p.String(p.SampleTypes[ti].Unit))...)
			want := pprofTraces(t, viewtest.Pprof(t, append(args, fx.Pprof)...), false)
			if len(want) == 0 {
				t.Fatalf("pprof printed no stacks")
			}
			compare(t, got, want)
		})
	}
}

func compare(t *testing.T, got, want map[string]int64) {
	t.Helper()
	var bad []string
	for k, v := range want {
		if got[k] != v {
			bad = append(bad, fmt.Sprintf("%s: folded %d, pprof %d", k, got[k], v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s: folded %d, pprof none", k, v))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d of %d stacks differ, e.g.\n%s", len(bad), len(want), strings.Join(bad[:min(3, len(bad))], "\n"))
	}
}

// TestRoundTrip: pprof -> folded -> pprof keeps every stack's total for
// the chosen sample type, and writing the result again gives the same
// bytes.
func TestRoundTrip(t *testing.T) {
	for _, fx := range viewtest.Fixtures(t) {
		p := fx.Profile
		for _, st := range p.SampleTypes {
			typ, unit := p.String(st.Type), p.String(st.Unit)
			var a bytes.Buffer
			if err := folded.Encode(&a, p, folded.WriteOptions{SampleType: typ}); err != nil {
				t.Fatal(err)
			}
			q, err := folded.Decode(bytes.NewReader(a.Bytes()), folded.ReadOptions{SampleType: typ + "/" + unit})
			if err != nil {
				t.Fatalf("%s/%s: %v", fx.Name, typ, err)
			}
			if got := callstacks.TypeNames(q); len(got) != 1 || got[0] != typ+"/"+unit {
				t.Errorf("%s: sample types %v", fx.Name, got)
			}
			// Totals per stack, from the model, against the source's.
			ti, _ := callstacks.SampleIndex(p, typ)
			src := callstacks.Aggregate(p, []int{ti}, callstacks.Options{})
			back := callstacks.Aggregate(q, []int{0}, callstacks.Options{})
			if !equalSets(src, back) {
				t.Errorf("%s/%s: stacks or totals changed through folded", fx.Name, typ)
			}
			var b bytes.Buffer
			if err := folded.Encode(&b, q, folded.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s/%s: folded -> pprof -> folded changed the text", fx.Name, typ)
			}
		}
	}
}

func equalSets(a, b *callstacks.Set) bool {
	if a.Len() != b.Len() || a.Len() == 0 {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		sa, sb := a.Stack(i), b.Stack(i)
		if len(sa) != len(sb) || a.Values[0][i] != b.Values[0][i] {
			return false
		}
		for j := range sa {
			if a.Name(sa[j]) != b.Name(sb[j]) {
				return false
			}
		}
	}
	return true
}
