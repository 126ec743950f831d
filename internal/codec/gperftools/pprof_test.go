package gperftools

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"
)

// fixtures are the real files written by gperftools' libprofiler (and the
// 32-bit big-endian one derived from a real file), with what each must show.
var fixtures = []struct {
	file    string
	layout  Layout
	period  uint64 // µs
	trailer bool
	main    string // file of the first mapping; "" when there are no mappings
	deleted bool
}{
	{"le64-100hz.prof", Layout{8, false}, 10000, true, "/tmp/pprofx gperftools/burn", false},
	{"le64-1000hz-4t.prof", Layout{8, false}, 1000, true, "/tmp/pprofx gperftools/burn", false},
	{"le64-hot.prof", Layout{8, false}, 10000, true, "/tmp/pprofx gperftools/burn", false},
	{"le64-notrailer.prof", Layout{8, false}, 10000, false, "", false},
	{"le64-deleted.prof", Layout{8, false}, 10000, true, "/tmp/pprofx gperftools/burn-deleted", true},
	{"le32-100hz.prof", Layout{4, false}, 10000, true, "/tmp/pprofx gperftools/burn32", false},
	{"be64-100hz.prof", Layout{8, true}, 10000, true, "/tmp/pprofx gperftools/burn-s390x", false},
	{"be32-100hz.prof", Layout{4, true}, 10000, true, "/tmp/pprofx gperftools/burn32", false},
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "gperftools", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawRecord is one record as the file holds it, PCs adjusted as both readers
// adjust them (non-leaf PCs minus one).
type rawRecord struct {
	count uint64
	addrs []uint64
}

// rawRecords is a deliberately simple whole-file reader, independent of
// Decode, used as the oracle for summing and for replaying google/pprof's
// per-record heuristics. It only handles well-formed files.
func rawRecords(t *testing.T, b []byte, l Layout) []rawRecord {
	t.Helper()
	var order binary.ByteOrder = binary.LittleEndian
	if l.BigEndian {
		order = binary.BigEndian
	}
	s := l.SlotSize
	get := func(i int) uint64 {
		if s == 4 {
			return uint64(order.Uint32(b[i*s:]))
		}
		return order.Uint64(b[i*s:])
	}
	i := 2 + int(get(1))
	var recs []rawRecord
	for (i+2)*s <= len(b) {
		count, n := get(i), int(get(i+1))
		if (i+2+n)*s > len(b) {
			t.Fatalf("oracle: record at slot %d runs past the end", i)
		}
		if count == 0 && n == 1 && get(i+2) == 0 {
			break
		}
		r := rawRecord{count: count}
		for j := 0; j < n; j++ {
			a := get(i + 2 + j)
			if j > 0 {
				a--
			}
			r.addrs = append(r.addrs, a)
		}
		recs = append(recs, r)
		i += 2 + n
	}
	return recs
}

func stackKey(addrs []uint64) string {
	var sb strings.Builder
	for _, a := range addrs {
		fmt.Fprintf(&sb, "%x ", a)
	}
	return sb.String()
}

// pprofSecondFrames replays google/pprof's "common second frame" heuristic
// (cpuProfile in legacy_profile.go) on the records: up to twice, an address
// found second in all records but one in 32 is removed from that position.
// It returns the records as pprof leaves them and the removed addresses.
func pprofSecondFrames(recs []rawRecord) ([][]uint64, []uint64) {
	stacks := make([][]uint64, len(recs))
	for i, r := range recs {
		stacks[i] = append([]uint64(nil), r.addrs...)
	}
	var removed []uint64
	margin := len(stacks) / 32
	for iter := 0; iter < 2; iter++ {
		n := map[uint64]int{}
		for _, s := range stacks {
			if len(s) > 1 {
				n[s[1]]++
			}
		}
		for a, c := range n {
			if c >= len(stacks)-margin {
				removed = append(removed, a)
				for i, s := range stacks {
					if len(s) > 1 && s[1] == a {
						stacks[i] = append(s[:1], s[2:]...)
					}
				}
				break
			}
		}
	}
	return stacks, removed
}

// pprofDuplicateLeaf is google/pprof's cleanupDuplicateLocations: a second
// frame whose address is the leaf's minus one is removed.
func pprofDuplicateLeaf(s []uint64) []uint64 {
	if len(s) > 1 && s[0] == s[1]+1 {
		return append(s[:1:1], s[2:]...)
	}
	return s
}

func addrs(p *model.Profile, stack int32) []uint64 {
	var a []uint64
	for _, li := range p.Stacks.Append(nil, int(stack)) {
		a = append(a, p.Locations[li].Address)
	}
	return a
}

func TestDifferentialPprof(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			data := readFixture(t, fx.file)
			var warns []string
			p, info, err := Decode(bytes.NewReader(data), Options{Warn: func(m string) { warns = append(warns, m) }})
			if err != nil {
				t.Fatal(err)
			}
			pp, err := profile.ParseData(data)
			if err != nil {
				t.Fatalf("google/pprof: %v", err)
			}

			// Header and layout.
			if info.Layout != fx.layout || info.PeriodMicros != fx.period || info.HeaderWords != 3 || info.Trailer != fx.trailer {
				t.Errorf("info = %+v, want layout %v period %d trailer %v", info, fx.layout, fx.period, fx.trailer)
			}
			if p.Period != pp.Period || p.String(p.PeriodType.Type) != pp.PeriodType.Type || p.String(p.PeriodType.Unit) != pp.PeriodType.Unit {
				t.Errorf("period %d %s/%s, pprof %d %s/%s", p.Period, p.String(p.PeriodType.Type), p.String(p.PeriodType.Unit), pp.Period, pp.PeriodType.Type, pp.PeriodType.Unit)
			}
			if len(p.SampleTypes) != len(pp.SampleType) {
				t.Fatalf("%d sample types, pprof %d", len(p.SampleTypes), len(pp.SampleType))
			}
			for i, st := range pp.SampleType {
				if p.String(p.SampleTypes[i].Type) != st.Type || p.String(p.SampleTypes[i].Unit) != st.Unit {
					t.Errorf("sample type %d: %s/%s, pprof %s/%s", i, p.String(p.SampleTypes[i].Type), p.String(p.SampleTypes[i].Unit), st.Type, st.Unit)
				}
			}
			if p.String(p.DropFrames) != pp.DropFrames {
				t.Errorf("drop_frames %q, pprof %q", p.String(p.DropFrames), pp.DropFrames)
			}
			if !fx.trailer && len(warns) == 0 {
				t.Errorf("no warning for a file without a trailer")
			}

			// pprof keeps one sample per record.
			if info.Records != len(pp.Sample) {
				t.Errorf("%d records, pprof has %d samples", info.Records, len(pp.Sample))
			}

			// Totals: heuristics move no value.
			var tot, ptot [2]int64
			for _, s := range p.Samples {
				tot[0] += s.Values()[0]
				tot[1] += s.Values()[1]
			}
			for _, s := range pp.Sample {
				ptot[0] += s.Value[0]
				ptot[1] += s.Value[1]
			}
			if tot != ptot || uint64(tot[0]) != info.TotalCount {
				t.Errorf("totals %v (info %d), pprof %v", tot, info.TotalCount, ptot)
			}

			// Every frame kept: our summed stacks are exactly the file's
			// records, summed, with non-leaf PCs minus one.
			recs := rawRecords(t, data, fx.layout)
			want := map[string]int64{}
			var wantOrder []string
			for _, r := range recs {
				k := stackKey(r.addrs)
				if _, ok := want[k]; !ok {
					wantOrder = append(wantOrder, k)
				}
				want[k] += int64(r.count)
			}
			if len(p.Samples) != len(want) || len(recs) != info.Records {
				t.Errorf("%d samples from %d records, want %d distinct stacks from %d records", len(p.Samples), info.Records, len(want), len(recs))
			}
			for i, s := range p.Samples {
				k := stackKey(addrs(p, s.Stack))
				if i < len(wantOrder) && k != wantOrder[i] {
					t.Errorf("sample %d: stack %s, want first-seen order %s", i, k, wantOrder[i])
				}
				if want[k] != s.Values()[0] || s.Values()[1] != s.Values()[0]*p.Period {
					t.Errorf("sample %d at %s: values %v, want count %d", i, k, s.Values(), want[k])
				}
			}
			if fx.file == "le64-100hz.prof" && len(recs) == len(want) {
				// The writer flushed every 250 ms: stacks repeat as records.
				t.Errorf("no repeated stack in %s: summing is not exercised", fx.file)
			}

			// The same summed stacks as pprof once its heuristics are replayed.
			heur, removed := pprofSecondFrames(recs)
			removedSet := map[uint64]bool{}
			for _, a := range removed {
				removedSet[a] = true
			}
			theirs := map[string]int64{}
			for _, s := range pp.Sample {
				var a []uint64
				for _, l := range s.Location {
					a = append(a, l.Address)
				}
				theirs[stackKey(a)] += s.Value[0]
			}
			ours := map[string]int64{}
			framesBefore, framesAfter := 0, 0
			for i, s := range heur {
				framesBefore += len(recs[i].addrs)
				s = pprofDuplicateLeaf(s)
				framesAfter += len(s)
				ours[stackKey(s)] += int64(recs[i].count)
			}
			// The same through our summed stacks: the second-frame removal
			// only depends on the address, so it commutes with summing.
			ours2 := map[string]int64{}
			for _, s := range p.Samples {
				a := addrs(p, s.Stack)
				for iter := 0; iter < len(removed); iter++ {
					if len(a) > 1 && a[1] == removed[iter] {
						a = append(a[:1], a[2:]...)
					}
				}
				ours2[stackKey(pprofDuplicateLeaf(a))] += s.Values()[0]
			}
			if fx.file == "le64-hot.prof" && len(removed) != 2 {
				t.Errorf("pprof removed common second frames %x from the hot file, want 2 (middle and work)", removed)
			}
			compareStacks(t, "records replayed", ours, theirs)
			compareStacks(t, "summed stacks replayed", ours2, theirs)
			t.Logf("%s: %d records, %d stacks; pprof's heuristics remove %d of %d frames (common second frames %x)",
				fx.file, len(recs), len(p.Samples), framesBefore-framesAfter, framesBefore, removed)

			// Mappings: the same set. pprof cuts file names at the first
			// blank, moves the start of a first mapping at Start-Offset ==
			// 0x400000 to 0x400000, and adds a 0..2^64 mapping for
			// unmapped PCs; we do none of these.
			type mk struct {
				base, limit uint64
				file        string
			}
			var fake *profile.Mapping
			pm := map[mk]*profile.Mapping{}
			for _, m := range pp.Mapping {
				if m.Start == 0 && m.Limit == ^uint64(0) && m.File == "" {
					fake = m
					continue
				}
				pm[mk{m.Start - m.Offset, m.Limit, m.File}] = m
			}
			if len(p.Mappings) != len(pm) {
				t.Errorf("%d mappings, pprof %d (+ fake: %v)", len(p.Mappings), len(pm), fake != nil)
			}
			ourByKey := map[mk]int32{}
			for i, m := range p.Mappings {
				f := p.String(m.File)
				if j := strings.IndexAny(f, " \t"); j >= 0 {
					f = f[:j]
				}
				k := mk{m.Start - m.Offset, m.Limit, f}
				if pm[k] == nil {
					t.Errorf("mapping %d %x-%x %q: not in pprof's", i, m.Start, m.Limit, p.String(m.File))
				}
				ourByKey[k] = int32(i)
			}
			if fx.main != "" && (len(p.Mappings) == 0 || p.String(p.Mappings[0].File) != fx.main) {
				t.Errorf("first mapping is not the main binary %q", fx.main)
			}
			if fx.deleted != (len(info.Deleted) > 0) {
				t.Errorf("deleted files %q", info.Deleted)
			}
			for _, m := range p.Mappings {
				if strings.HasSuffix(p.String(m.File), "(deleted)") {
					t.Errorf("mapping file %q keeps the (deleted) suffix", p.String(m.File))
				}
			}
			// Each location in the same mapping as pprof's location at that address.
			pl := map[uint64]*profile.Location{}
			for _, l := range pp.Location {
				pl[l.Address] = l
			}
			for i, l := range p.Locations {
				q := pl[l.Address]
				if q == nil {
					continue // a frame pprof's heuristics removed everywhere
				}
				if l.Mapping == model.NoMapping {
					if q.Mapping != nil && q.Mapping != fake {
						t.Errorf("location %d %x: unmapped, pprof maps it to %s", i, l.Address, q.Mapping.File)
					}
					continue
				}
				m := q.Mapping
				if m == nil || m == fake || ourByKey[mk{m.Start - m.Offset, m.Limit, m.File}] != l.Mapping {
					t.Errorf("location %d %x: mapping %d, pprof %+v", i, l.Address, l.Mapping, m)
				}
			}
		})
	}
}

func compareStacks(t *testing.T, what string, ours, theirs map[string]int64) {
	t.Helper()
	var diffs []string
	for k, v := range ours {
		if theirs[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: ours %d, pprof %d", k, v, theirs[k]))
		}
	}
	for k, v := range theirs {
		if _, ok := ours[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: ours 0, pprof %d", k, v))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s: %d stacks differ from pprof's, e.g. %s", what, len(diffs), diffs[0])
	}
}
