// Command symcmp compares two symbolized profiles location by location,
// keyed by mapping file name and address, as google/pprof reads them: each
// location's frames (function name, system name, file, line). It sorts the
// differences into the kinds testdata/symbolize/ref/README lists and a few
// more, and prints each kind's count and first examples. It is a
// measuring tool for scripts/symbolize-agree.sh, not part of pprofx.
//
//	go run ./internal/tools/symcmp [-n 3] [-llvm ELF -base ADDR] [-check] pprof.pb.gz pprofx.pb.gz
//
// With -llvm, each location that differs is also given to llvm-symbolizer
// (ELF loaded at -base), and each kind's count says how many of them have
// pprof's files and lines, and how many pprofx's, as llvm-symbolizer has
// them: a third opinion where the two differ.
//
// With -check it exits with status 1 unless every difference is one of
// the file only where llvm-symbolizer (required) sides with pprofx: what
// make agree asks of a real library in CI.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/symbolize/pprofdiff"
)

type frameLine = pprofdiff.Frame

func load(path string) (map[string][]frameLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	m := map[string][]frameLine{}
	for _, l := range p.Location {
		bin := "(no mapping)"
		if l.Mapping != nil {
			bin = filepath.Base(l.Mapping.File)
		}
		var fl []frameLine
		for _, ln := range l.Line {
			f := frameLine{Line: ln.Line}
			if ln.Function != nil {
				f.Name, f.SystemName, f.File = ln.Function.Name, ln.Function.SystemName, ln.Function.Filename
			}
			fl = append(fl, f)
		}
		m[fmt.Sprintf("%s %#x", bin, l.Address)] = fl
	}
	return m, nil
}

// kind tells how pprof's frames want differ from pprofx's got.
func kind(want, got []frameLine) string {
	switch {
	case got == nil:
		return "not in pprofx's output"
	case want == nil:
		return "not in pprof's output"
	case len(got) == 0 && len(want) > 0:
		return "pprofx has no frame"
	case len(want) == 0 && len(got) > 0:
		return "pprof has no frame"
	case len(want) != len(got):
		return "inline chains of different length"
	}
	var k []string
	add := func(s string) {
		for _, x := range k {
			if x == s {
				return
			}
		}
		k = append(k, s)
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Name != g.Name || w.SystemName != g.SystemName {
			add("name")
		}
		if w.File != g.File {
			add("file")
		}
		if w.Line != g.Line {
			add("line")
		}
	}
	return strings.Join(k, "+") + " differ"
}

func show(fl []frameLine) string {
	var b strings.Builder
	for _, f := range fl {
		fmt.Fprintf(&b, "\n        %s [%s] %s:%d", f.Name, f.SystemName, f.File, f.Line)
	}
	return b.String()
}

// llvmLines runs llvm-symbolizer on addrs (less base) of elf and gives
// each one's frames' files and lines, innermost first.
func llvmLines(elf string, base uint64, addrs []uint64) ([][]frameLine, error) {
	var in strings.Builder
	for _, a := range addrs {
		fmt.Fprintf(&in, "%#x\n", a-base)
	}
	cmd := exec.Command("llvm-symbolizer", "--obj="+elf, "--inlining", "--functions=none")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	recs := strings.Split(strings.TrimSpace(string(out)), "\n\n")
	if len(recs) != len(addrs) {
		return nil, fmt.Errorf("llvm-symbolizer gave %d answers for %d addresses", len(recs), len(addrs))
	}
	res := make([][]frameLine, len(recs))
	for i, r := range recs {
		for _, l := range strings.Split(r, "\n") {
			// FILE:LINE:COLUMN
			if k := strings.LastIndexByte(l, ':'); k > 0 {
				l = l[:k]
			}
			k := strings.LastIndexByte(l, ':')
			if k < 0 {
				continue
			}
			f, _ := pprofdiff.NoLineFile(l[:k])
			n, _ := strconv.ParseInt(l[k+1:], 10, 64)
			res[i] = append(res[i], frameLine{File: f, Line: n})
		}
	}
	return res, nil
}

// sameLines says whether llvm-symbolizer's files and lines ll are those
// of fl, its files read as pprof's are (llvm-symbolizer 14 joins a
// relative compilation directory twice too).
func sameLines(ll, fl []frameLine) bool {
	if len(ll) != len(fl) {
		return false
	}
	for i := range ll {
		if ll[i].Line != fl[i].Line || ll[i].File != fl[i].File && !pprofdiff.CompDirTwice(fl[i].File, ll[i].File) {
			return false
		}
	}
	return true
}

func main() {
	n := flag.Int("n", 3, "examples shown of each kind")
	llvmELF := flag.String("llvm", "", "ask llvm-symbolizer too, of this ELF file")
	baseFlag := flag.String("base", "0", "the address the ELF file is loaded at (-llvm)")
	check := flag.Bool("check", false, "exit 1 unless every difference is a file where llvm-symbolizer sides with pprofx")
	flag.Parse()
	base, err := strconv.ParseUint(*baseFlag, 0, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "symcmp: -base:", err)
		os.Exit(2)
	}
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: symcmp [-n N] PPROF_OUTPUT PPROFX_OUTPUT")
		os.Exit(2)
	}
	ref, err := load(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "symcmp:", err)
		os.Exit(1)
	}
	ours, err := load(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "symcmp:", err)
		os.Exit(1)
	}
	c := compare(ref, ours)
	// llvm-symbolizer's opinion of each kind's files and lines.
	third := map[string]string{}
	sided := map[string]bool{} // kinds where llvm-symbolizer sides with pprofx every time
	if *llvmELF != "" {
		if third, sided, err = c.llvmOpinion(*llvmELF, base); err != nil {
			fmt.Fprintln(os.Stderr, "symcmp: llvm-symbolizer:", err)
			os.Exit(1)
		}
	}
	bad := c.report(*n, third, sided)
	if *check && (*llvmELF == "" || bad > 0) {
		fmt.Fprintf(os.Stderr, "symcmp: %d locations differ from pprof other than in a file llvm-symbolizer agrees with pprofx on\n", bad)
		os.Exit(1)
	}
}

// diff is a location where pprof and pprofx differ.
type diff struct {
	addr      uint64
	want, got []frameLine
}

// comparison is pprof's and pprofx's answers compared location by
// location, the differences sorted by kind.
type comparison struct {
	locations int
	same      int
	known     map[string]int      // pprof's known errors set right, by kind
	kinds     map[string][]string // examples of each kind of difference
	diffs     map[string][]diff
}

// compare compares pprof's answers (ref) with pprofx's (ours), after
// setting right the errors of pprof that pprofdiff knows.
func compare(ref, ours map[string][]frameLine) *comparison {
	keys := make([]string, 0, len(ref))
	for k := range ref {
		keys = append(keys, k)
	}
	for k := range ours {
		if _, ok := ref[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	c := &comparison{locations: len(keys), known: map[string]int{}, kinds: map[string][]string{}, diffs: map[string][]diff{}}
	for _, k := range keys {
		want, got := ref[k], ours[k]
		if want != nil {
			fixed := make([]frameLine, len(want))
			for i, f := range want {
				var ok bool
				if f.File, ok = pprofdiff.NoLineFile(f.File); ok {
					c.known["no-line file"]++
				}
				fixed[i] = f
			}
			want = fixed
			if len(want) == len(got) {
				for i := range want {
					if why := pprofdiff.Known(i, got, want); why != "" {
						want[i] = got[i]
						c.known[why]++
					}
				}
			}
		}
		if fmt.Sprint(want) == fmt.Sprint(got) && (want == nil) == (got == nil) {
			c.same++
			continue
		}
		kd := kind(want, got)
		c.kinds[kd] = append(c.kinds[kd], fmt.Sprintf("    %s\n      pprof:%s\n      pprofx:%s", k, show(want), show(got)))
		addr, _ := strconv.ParseUint(k[strings.LastIndexByte(k, ' ')+1:], 0, 64)
		c.diffs[kd] = append(c.diffs[kd], diff{addr, want, got})
	}
	return c
}

// llvmOpinion asks llvm-symbolizer about every address that differs and
// says, per kind, how often its files and lines are pprof's and pprofx's;
// sided holds the kinds where it sides with pprofx every time.
func (c *comparison) llvmOpinion(elf string, base uint64) (third map[string]string, sided map[string]bool, err error) {
	third, sided = map[string]string{}, map[string]bool{}
	for kd, ds := range c.diffs {
		addrs := make([]uint64, len(ds))
		for i, d := range ds {
			addrs[i] = d.addr
		}
		ll, err := llvmLines(elf, base, addrs)
		if err != nil {
			return nil, nil, err
		}
		pp, px := 0, 0
		for i, d := range ds {
			if sameLines(ll[i], d.want) {
				pp++
			}
			if sameLines(ll[i], d.got) {
				px++
			}
		}
		third[kd] = fmt.Sprintf(" (files and lines as llvm-symbolizer has them: pprof %d, pprofx %d)", pp, px)
		if kd == "file differ" && px == len(ds) {
			sided[kd] = true
		}
	}
	return third, sided, nil
}

// report prints the comparison, n examples of each kind, and returns how
// many locations differ in a kind llvm-symbolizer did not settle.
func (c *comparison) report(n int, third map[string]string, sided map[string]bool) (bad int) {
	fmt.Printf("%d locations: %d agree (after pprof's known errors: %v)\n", c.locations, c.same, c.known)
	names := make([]string, 0, len(c.kinds))
	for k := range c.kinds {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(c.kinds[names[i]]) > len(c.kinds[names[j]]) })
	for _, kd := range names {
		ex := c.kinds[kd]
		fmt.Printf("  %d: %s%s\n", len(ex), kd, third[kd])
		for _, e := range ex[:min(n, len(ex))] {
			fmt.Println(e)
		}
		if !sided[kd] {
			bad += len(ex)
		}
	}
	return bad
}
