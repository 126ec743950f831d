package officialtest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/pprofx/pprofx/internal/codec/jfr"
	"github.com/pprofx/pprofx/internal/model"
)

// sums is, per sample type ("type/unit"), the total value of each key.
type sums map[string]map[string]int64

func (s sums) add(st, key string, v int64) {
	if s[st] == nil {
		s[st] = map[string]int64{}
	}
	s[st][key] += v
}

// diff says where two sums differ, or "".
func (s sums) diff(o sums) string {
	var out []string
	for st, m := range s {
		for k, v := range m {
			if o[st][k] != v {
				out = append(out, fmt.Sprintf("%s %q: %d, want %d", st, k, o[st][k], v))
			}
		}
	}
	for st, m := range o {
		for k, v := range m {
			if _, ok := s[st][k]; !ok {
				out = append(out, fmt.Sprintf("%s %q: %d, want none", st, k, v))
			}
		}
	}
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return strings.Join(out, "\n")
}

// TestPdataReadsJFR: pprofx's OTLP of JFR recordings, as the collector's
// pdata reads it, has every location's profile.frame.type as pprofx's
// model has it, the thread.name and thread.id sample attributes (and no
// thread or thread_id), timestamps on every sample, and per sample type
// the same totals by stack and thread as google/pprof reads in pprofx's
// pprof of the same recording.
//
// The recording of 300k events (cpu.jfr's first chunk, one of its CPU
// samples repeated, jfr.RepeatEvent) makes a message of more than 16 MiB,
// which pprofx writes as it encodes it.
func TestPdataReadsJFR(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	big, err := jfr.RepeatEvent(read(t, filepath.Join(root, "testdata", "jfr", "cpu.jfr")), "jdk.ExecutionSample", 300_000)
	if err != nil {
		t.Fatal(err)
	}
	bigPath := filepath.Join(dir, "repeated.jfr")
	if err := os.WriteFile(bigPath, big, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cpu.jfr", "jfr-parser/example.jfr.gz", bigPath} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src := filepath.Join(root, "testdata", "jfr", f)
			if filepath.IsAbs(f) {
				src = f
			}
			base := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(f))
			for _, o := range []string{base + ".otlp", base + ".pb.gz"} {
				if b, err := exec.Command(pprofx, "convert", src, "-o", o).CombinedOutput(); err != nil {
					t.Fatalf("%v\n%s", err, b)
				}
			}
			ref, err := profile.ParseData(read(t, base+".pb.gz"))
			if err != nil {
				t.Fatal(err)
			}
			ps, err := (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(read(t, base+".otlp"))
			if err != nil {
				t.Fatal(err)
			}
			m := jfrModel(t, src)
			byThread, byType, stamps := pdataSums(t, ps)
			if d := pprofSums(ref).diff(byThread); d != "" {
				t.Errorf("pdata's stacks and threads differ from google/pprof's:\n%s", d)
			}
			typed, mstamps := modelSums(m)
			if d := typed.diff(byType); d != "" {
				t.Errorf("pdata's stacks with frame types differ from the model's:\n%s", d)
			}
			for st, n := range mstamps {
				if stamps[st] != n {
					t.Errorf("%s: %d timestamps, the model has %d", st, stamps[st], n)
				}
			}
			if len(byThread) != len(ref.SampleType) || len(ref.SampleType) == 0 {
				t.Errorf("%d sample types in pdata, %d in pprof", len(byThread), len(ref.SampleType))
			}
		})
	}
}

// jfrModel reads a recording (gzipped or not) with pprofx's JFR reader.
func jfrModel(t *testing.T, path string) *model.Profile {
	t.Helper()
	data := read(t, path)
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	m, _, err := jfr.DecodeBytes(data, jfr.Options{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func frameText(name, sys, file string, line int64) string {
	return fmt.Sprintf("%s %s %s:%d", name, sys, file, line)
}

// pprofSums sums google/pprof's reading by stack and thread labels.
func pprofSums(p *profile.Profile) sums {
	out := sums{}
	for _, s := range p.Sample {
		var k []string
		for _, l := range s.Location {
			for _, ln := range l.Line {
				k = append(k, frameText(ln.Function.Name, ln.Function.SystemName, ln.Function.Filename, ln.Line))
			}
		}
		key := fmt.Sprintf("%s thread=%q thread_id=%v", strings.Join(k, ";"), s.Label["thread"], s.NumLabel["thread_id"])
		for i, st := range p.SampleType {
			if s.Value[i] != 0 {
				out.add(st.Type+"/"+st.Unit, key, s.Value[i])
			}
		}
	}
	return out
}

// modelSums sums the model's samples by stack with each location's
// profile.frame.type, and counts the timestamps of each sample type.
func modelSums(p *model.Profile) (sums, map[string]int) {
	out, stamps := sums{}, map[string]int{}
	for _, s := range p.Samples {
		var k []string
		for _, li := range p.Stacks.Append(nil, int(s.Stack)) {
			l := &p.Locations[li]
			ft := ""
			for _, a := range p.LocationAttrs(int(li)) {
				if a.Key == "profile.frame.type" {
					ft = a.Value.Str
				}
			}
			for _, ln := range p.LinesOf(l) {
				f := &p.Functions[ln.Function]
				k = append(k, frameText(p.String(f.Name), p.String(f.SystemName), p.String(f.Filename), ln.Line))
			}
			k = append(k, "["+ft+"]")
		}
		key := strings.Join(k, ";")
		for i, st := range p.SampleTypes {
			if s.Values()[i] != 0 {
				name := p.String(st.Type) + "/" + p.String(st.Unit)
				out.add(name, key, s.Values()[i])
				stamps[name] += len(s.Timestamps())
			}
		}
	}
	return out, stamps
}

// pdataSums reads pdata's profiles by the semantic conventions: sums by
// stack and thread.name/thread.id, sums by stack with frame types, and the
// timestamps of each sample type. It fails the test for a location without
// exactly one profile.frame.type, a sample without timestamps or with a
// thread or thread_id attribute.
func pdataSums(t *testing.T, ps pprofile.Profiles) (byThread, byType sums, stamps map[string]int) {
	t.Helper()
	d := ps.Dictionary()
	strs := d.StringTable()
	str := func(i int32) string { return strs.At(int(i)) }
	attr := func(i int32) (string, pcommon.Value) {
		a := d.AttributeTable().At(int(i))
		return str(a.KeyStrindex()), a.Value()
	}
	lt, ft := d.LocationTable(), d.FunctionTable()
	frames := make([][]string, lt.Len())
	types := make([]string, lt.Len())
	for i := 1; i < lt.Len(); i++ {
		l := lt.At(i)
		n := 0
		for j := 0; j < l.AttributeIndices().Len(); j++ {
			if k, v := attr(l.AttributeIndices().At(j)); k == "profile.frame.type" {
				types[i] = v.Str()
				n++
			}
		}
		if n != 1 {
			t.Fatalf("location %d has %d profile.frame.type", i, n)
		}
		for j := 0; j < l.Lines().Len(); j++ {
			ln := l.Lines().At(j)
			f := ft.At(int(ln.FunctionIndex()))
			frames[i] = append(frames[i], frameText(str(f.NameStrindex()), str(f.SystemNameStrindex()), str(f.FilenameStrindex()), ln.Line()))
		}
	}
	byThread, byType, stamps = sums{}, sums{}, map[string]int{}
	threads := 0
	for r := 0; r < ps.ResourceProfiles().Len(); r++ {
		sps := ps.ResourceProfiles().At(r).ScopeProfiles()
		for s := 0; s < sps.Len(); s++ {
			for p := 0; p < sps.At(s).Profiles().Len(); p++ {
				pr := sps.At(s).Profiles().At(p)
				st := str(pr.SampleType().TypeStrindex()) + "/" + str(pr.SampleType().UnitStrindex())
				start, end := pr.Time().AsTime().UnixNano(), pr.Time().AsTime().UnixNano()+int64(pr.DurationNano())
				for i := 0; i < pr.Samples().Len(); i++ {
					sm := pr.Samples().At(i)
					var name []string
					var id []int64
					for j := 0; j < sm.AttributeIndices().Len(); j++ {
						k, v := attr(sm.AttributeIndices().At(j))
						switch k {
						case "thread.name":
							name = append(name, v.Str())
						case "thread.id":
							id = append(id, v.Int())
						case "thread", "thread_id":
							t.Fatalf("%s sample %d has the attribute %s", st, i, k)
						}
					}
					if len(name) > 0 && len(id) > 0 {
						threads++
					}
					var plain, typed []string
					locs := d.StackTable().At(int(sm.StackIndex())).LocationIndices()
					for j := 0; j < locs.Len(); j++ {
						li := locs.At(j)
						plain = append(plain, frames[li]...)
						typed = append(append(typed, frames[li]...), "["+types[li]+"]")
					}
					ts := sm.TimestampsUnixNano()
					if ts.Len() == 0 {
						t.Fatalf("%s sample %d has no timestamp", st, i)
					}
					for j := 0; j < ts.Len(); j++ {
						if x := int64(ts.At(j)); x < start || x > end {
							t.Errorf("%s sample %d: timestamp %d outside [%d, %d]", st, i, x, start, end)
						}
					}
					var v int64
					for j := 0; j < sm.Values().Len(); j++ {
						v += sm.Values().At(j)
					}
					if v == 0 { // a sample of another sample type
						continue
					}
					stamps[st] += ts.Len()
					key := fmt.Sprintf("%s thread=%q thread_id=%v", strings.Join(plain, ";"), name, id)
					byThread.add(st, key, v)
					byType.add(st, strings.Join(typed, ";"), v)
				}
			}
		}
	}
	if threads == 0 {
		t.Error("no sample has thread.name and thread.id")
	}
	return byThread, byType, stamps
}
