package collectortest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/pprofx/pprofx/internal/cli"
	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

const repo = "../../.."

// fixtures are the real profiles of testdata: Go runtime profiles, the
// pprof tool's outputs, every gperftools CPU profile and the hand-built
// rich OTLP source.
func fixtures(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, g := range []string{"testdata/go/*.pb.gz", "testdata/pprof/*.pb.gz", "testdata/gperftools/*.prof", "testdata/otlp/rich.pb.gz"} {
		m, _ := filepath.Glob(filepath.Join(repo, g))
		if len(m) == 0 {
			t.Fatalf("no fixture %s", g)
		}
		files = append(files, m...)
	}
	return files
}

// sent is what the fixtures hold, as google/pprof reads it: a pprof file
// parsed by google/pprof itself; any other input as pprofx reads it (for
// gperftools files pprofx keeps frames google/pprof's legacy reader
// drops), written as pprof.
func sent(t testing.TB, files []string) map[string][]*gp.Profile {
	t.Helper()
	out := map[string][]*gp.Profile{}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		in, err := formats.Read(bytes.NewReader(data), formats.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if string(in.Format) == "pprof" {
			p, err := gp.ParseData(data)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = []*gp.Profile{p}
			continue
		}
		for _, it := range in.Items {
			var buf bytes.Buffer
			if err := pprof.Encode(&buf, it.Profile, pprof.EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
			p, err := gp.ParseData(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			out[name] = append(out[name], p)
		}
	}
	return out
}

// received reads the collector's file with pprofx's v1development reader
// and converts every profile back to pprof, read by google/pprof.
func received(t testing.TB, data []byte) []*gp.Profile {
	t.Helper()
	pdataReads(t, data)
	ps, err := otlp.Decode(data, otlp.DecodeOptions{Warn: func(s string) { t.Errorf("reading the collector's file: warning: %s", s) }})
	if err != nil {
		t.Fatalf("reading the collector's file: %v", err)
	}
	var out []*gp.Profile
	for _, p := range ps {
		pprofextended.FoldForPprof(p, func(s string) { t.Errorf("FoldForPprof warned: %s", s) })
		var buf bytes.Buffer
		if err := pprof.Encode(&buf, p, pprof.EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		g, err := gp.ParseData(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// sameProfiles checks that got holds every profile of want exactly once
// (in any order: concurrent requests may arrive in any order), sample for
// sample and mapping for mapping (mappings no sample uses, and their
// order, included), and nothing else.
func sameProfiles(t testing.TB, want map[string][]*gp.Profile, got []*gp.Profile) {
	t.Helper()
	type wp struct {
		name string
		p    *gp.Profile
		used bool
	}
	var all []*wp
	for name, ps := range want {
		for _, p := range ps {
			all = append(all, &wp{name: name, p: p})
		}
	}
	if len(got) != len(all) {
		t.Errorf("the collector holds %d profiles, %d were sent", len(got), len(all))
	}
	for i, g := range got {
		var best *wp
		bestDiff := ""
		for _, w := range all {
			if w.used {
				continue
			}
			d := pprofcmp.Diff(w.p, g)
			if d == "" {
				best, bestDiff = w, ""
				break
			}
			if best == nil || len(d) < len(bestDiff) {
				best, bestDiff = w, d
			}
		}
		if best == nil {
			t.Errorf("received profile %d: no sent profile left to match it (sent twice?)", i)
			continue
		}
		if bestDiff != "" {
			t.Errorf("received profile %d matches no sent profile; closest is %s: %s", i, best.name, firstLines(bestDiff, 8))
			continue
		}
		best.used = true
	}
	for _, w := range all {
		if !w.used && len(got) >= len(all) {
			t.Errorf("%s: not found in the collector's output", w.name)
		}
	}
}

// unusedMappings counts the mappings of p that no sample's location uses.
func unusedMappings(p *gp.Profile) int {
	used := map[*gp.Mapping]bool{}
	for _, s := range p.Sample {
		for _, l := range s.Location {
			used[l.Mapping] = true
		}
	}
	n := 0
	for _, m := range p.Mapping {
		if !used[m] {
			n++
		}
	}
	return n
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// pprofx runs `pprofx ARGS...` in this process and returns its exit status
// and standard error.
func pprofx(t testing.TB, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &cli.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr})
	t.Logf("pprofx %s\n-> exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	return code, stderr.String()
}

var protocols = []string{"http/protobuf", "http/json", "grpc"}

func endpointFor(c *collector, protocol string) string {
	if protocol == "grpc" {
		return "http://" + c.GRPC
	}
	return "http://" + c.HTTP
}

// TestEveryFixtureEveryProtocol pushes every real fixture through each
// protocol to a real collector, once in one request and once in requests
// of at most 24 KiB, three in flight, and checks that the collector's file
// holds each profile exactly once, sample for sample and mapping for
// mapping: profiles sharing a request share its OTLP dictionary, and each
// keeps its own mapping list (mappings no sample uses, in its order).
func TestEveryFixtureEveryProtocol(t *testing.T) {
	files := fixtures(t)
	want := sent(t, files)
	nwant, unused := 0, 0
	for _, ps := range want {
		nwant += len(ps)
		for _, p := range ps {
			unused += unusedMappings(p)
		}
	}
	if unused == 0 {
		t.Fatal("no fixture has a mapping that no sample uses: the mapping comparison would prove less than it says")
	}
	for _, proto := range protocols {
		for _, batching := range []struct {
			name string
			args []string
		}{{"one-request", nil}, {"batches", []string{"--max-batch-bytes", "24KiB", "--concurrency", "3"}}} {
			t.Run(strings.ReplaceAll(proto, "/", "-")+"/"+batching.name, func(t *testing.T) {
				c := newCollector(t, collectorOpts{})
				c.start(t)
				args := append([]string{"push", "--endpoint", endpointFor(c, proto), "--protocol", proto}, batching.args...)
				args = append(args, files...)
				code, stderr := pprofx(t, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if !strings.Contains(stderr, fmt.Sprintf("pprofx: pushed %d profiles", nwant)) || !strings.Contains(stderr, fmt.Sprintf("from %d of %d files", len(files), len(files))) {
					t.Errorf("summary line missing or wrong: %s", stderr)
				}
				if batching.args == nil && !strings.Contains(stderr, " in 1 requests") {
					t.Errorf("want one request: %s", stderr)
				}
				if batching.args != nil && strings.Contains(stderr, " in 1 requests") {
					t.Errorf("want several requests: %s", stderr)
				}
				if strings.Contains(stderr, "not kept") {
					t.Errorf("a warning of loss, where nothing is lost: %s", stderr)
				}
				out := c.output(t)
				np, ns := otlpCounts(t, out)
				if want := fmt.Sprintf("(%d OTLP profiles, ", np); !strings.Contains(stderr, want) {
					t.Errorf("pdata reads %d OTLP profiles in the collector's file; the summary says otherwise: %s", np, stderr)
				}
				t.Logf("pdata reads %d OTLP profiles holding %d samples (each pprof sample once per sample type)", np, ns)
				sameProfiles(t, want, received(t, out))
			})
		}
	}
}

// TestBundle: every profile of a bundle goes, and an unreadable input is
// named while the others still go (exit 1).
func TestBundleAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "all.ppxb")
	files := fixtures(t)[:5]
	if code, stderr := pprofx(t, append([]string{"merge", "-o", bundle}, files...)...); code != 0 {
		t.Fatal(stderr)
	}
	bad := filepath.Join(dir, "bad.pb.gz")
	os.WriteFile(bad, []byte("not a profile"), 0o644)
	c := newCollector(t, collectorOpts{})
	c.start(t)
	code, stderr := pprofx(t, "push", "--endpoint", "http://"+c.HTTP, bundle, bad, filepath.Join(dir, "missing.prof"))
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, s := range []string{"bad.pb.gz: unknown format", "missing.prof: no such file", "pushed 5 profiles", "from 1 of 3 files", "2 files unreadable"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q: %s", s, stderr)
		}
	}
	sameProfiles(t, sent(t, files), received(t, c.output(t)))
}

// frames splits the file exporter's output: each ProfilesData after its
// 4-byte big-endian length.
func frames(t testing.TB, data []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(data) > 0 {
		if len(data) < 4 {
			t.Fatalf("collector file: %d bytes left, not a frame", len(data))
		}
		n := binary.BigEndian.Uint32(data)
		if uint64(n) > uint64(len(data)-4) {
			t.Fatalf("collector file: frame of %d bytes, %d left", n, len(data)-4)
		}
		out = append(out, data[4:4+n])
		data = data[4+n:]
	}
	return out
}

// pdataReads checks that the collector's own pdata unmarshaler reads
// every frame of the collector's file; pprofx's reader then reads the file
// as the collector wrote it (its attribute table's zero entry holds an
// empty AnyValue, which is the zero value).
func pdataReads(t testing.TB, data []byte) {
	t.Helper()
	for i, f := range frames(t, data) {
		if _, err := (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(f); err != nil {
			t.Errorf("frame %d: pdata cannot read what the collector wrote: %v", i, err)
		}
	}
}

// otlpCounts reads the collector's file with pdata alone: OTLP profiles
// and samples, to hold against pprofx's summary line.
func otlpCounts(t testing.TB, data []byte) (profiles, samples int) {
	t.Helper()
	for i, f := range frames(t, data) {
		pd, err := (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(f)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		rps := pd.ResourceProfiles()
		for r := 0; r < rps.Len(); r++ {
			sps := rps.At(r).ScopeProfiles()
			for s := 0; s < sps.Len(); s++ {
				ps := sps.At(s).Profiles()
				profiles += ps.Len()
				for k := 0; k < ps.Len(); k++ {
					samples += ps.At(k).Samples().Len()
				}
			}
		}
	}
	return profiles, samples
}
