// Command symcmp compares two symbolized profiles location by location,
// keyed by mapping file name and address, as google/pprof reads them: each
// location's frames (function name, system name, file, line). It sorts the
// differences into the kinds testdata/symbolize/ref/README lists and a few
// more, and prints each kind's count and first examples. It is a
// measuring tool for scripts/symbolize-agree.sh, not part of pprofx.
//
//	go run ./internal/tools/symcmp [-n 3] [-llvm ELF -base ADDR] pprof.pb.gz pprofx.pb.gz
//
// With -llvm, each location that differs is also given to llvm-symbolizer
// (ELF loaded at -base), and each kind's count says how many of them have
// pprof's files and lines, and how many pprofx's, as llvm-symbolizer has
// them: a third opinion where the two differ.
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
)

type frame struct{ name, sys, file string }

type frameLine struct {
	frame
	line int64
}

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
			var fr frame
			if ln.Function != nil {
				fr = frame{ln.Function.Name, ln.Function.SystemName, ln.Function.Filename}
			}
			fl = append(fl, frameLine{fr, ln.Line})
		}
		m[fmt.Sprintf("%s %#x", bin, l.Address)] = fl
	}
	return m, nil
}

// fixRef turns the kinds of pprof error ref/README lists into pprofx's
// form: "??:?" (and ":?") as a file, and a relative compilation directory
// joined twice.
func fixRef(f string) (string, string) {
	if f == "??:?" || f == ":?" || f == "??" {
		return "", "no-line file"
	}
	for k := strings.IndexByte(f, '/'); k > 0; {
		d := f[:k]
		if !strings.HasPrefix(d, "/") && strings.HasPrefix(f, d+"/"+d+"/") {
			return f[len(d)+1:], "comp-dir-twice"
		}
		j := strings.IndexByte(f[k+1:], '/')
		if j < 0 {
			break
		}
		k += 1 + j
	}
	return f, ""
}

// pprofNameError tells whether frame i of pprof's chain want differs from
// pprofx's got by one of the two naming errors of pprof that
// testdata/symbolize/ref/README lists (2 and 3), by the rules
// internal/symbolize/reference_test.go recognises them by.
func pprofNameError(i int, got, want []frameLine) string {
	g, w := got[i], want[i]
	if g == w || g.file != w.file || g.line != w.line || len(got) < 2 {
		return ""
	}
	last := got[len(got)-1]
	if i == 0 && w.name == last.name && w.sys == last.sys {
		return "inlined-named-as-caller"
	}
	if i == len(got)-1 && strings.HasPrefix(g.sys, "_Z") && !strings.HasPrefix(w.sys, "_Z") &&
		strings.HasSuffix(g.name, "::"+w.name) {
		return "unqualified-outer-name"
	}
	return ""
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
		if w.name != g.name || w.sys != g.sys {
			add("name")
		}
		if w.file != g.file {
			add("file")
		}
		if w.line != g.line {
			add("line")
		}
	}
	return strings.Join(k, "+") + " differ"
}

func show(fl []frameLine) string {
	var b strings.Builder
	for _, f := range fl {
		fmt.Fprintf(&b, "\n        %s [%s] %s:%d", f.name, f.sys, f.file, f.line)
	}
	return b.String()
}

// llvmLines runs llvm-symbolizer on addrs (less base) of elf and gives
// each one's frames' file:line, innermost first, the files set right as
// for pprof (fixRef).
func llvmLines(elf string, base uint64, addrs []uint64) ([][]string, error) {
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
	res := make([][]string, len(recs))
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
			f, _ := fixRef(l[:k])
			if f == "??" {
				f = ""
			}
			res[i] = append(res[i], f+":"+l[k+1:])
		}
	}
	return res, nil
}

func fileLines(fl []frameLine) []string {
	var s []string
	for _, f := range fl {
		s = append(s, f.file+":"+strconv.FormatInt(f.line, 10))
	}
	return s
}

func main() {
	n := flag.Int("n", 3, "examples shown of each kind")
	llvmELF := flag.String("llvm", "", "ask llvm-symbolizer too, of this ELF file")
	baseFlag := flag.String("base", "0", "the address the ELF file is loaded at (-llvm)")
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
	same, known := 0, map[string]int{}
	kinds := map[string][]string{}
	type diff struct {
		addr      uint64
		want, got []frameLine
	}
	diffs := map[string][]diff{}
	for _, k := range keys {
		want, got := ref[k], ours[k]
		if want != nil {
			fixed := make([]frameLine, len(want))
			for i, f := range want {
				var why string
				f.file, why = fixRef(f.file)
				if why != "" {
					known[why]++
				}
				fixed[i] = f
			}
			want = fixed
		}
		if want != nil && len(want) == len(got) {
			for i := range want {
				if why := pprofNameError(i, got, want); why != "" {
					want[i] = got[i]
					known[why]++
				}
			}
		}
		if fmt.Sprint(want) == fmt.Sprint(got) && (want == nil) == (got == nil) {
			same++
			continue
		}
		kd := kind(want, got)
		kinds[kd] = append(kinds[kd], fmt.Sprintf("    %s\n      pprof:%s\n      pprofx:%s", k, show(want), show(got)))
		addr, _ := strconv.ParseUint(k[strings.LastIndexByte(k, ' ')+1:], 0, 64)
		diffs[kd] = append(diffs[kd], diff{addr, want, got})
	}
	// llvm-symbolizer's opinion of each kind's files and lines.
	third := map[string]string{}
	if *llvmELF != "" {
		for kd, ds := range diffs {
			addrs := make([]uint64, len(ds))
			for i, d := range ds {
				addrs[i] = d.addr
			}
			ll, err := llvmLines(*llvmELF, base, addrs)
			if err != nil {
				fmt.Fprintln(os.Stderr, "symcmp: llvm-symbolizer:", err)
				os.Exit(1)
			}
			pp, px := 0, 0
			for i, d := range ds {
				l := fmt.Sprint(ll[i])
				if l == fmt.Sprint(fileLines(d.want)) {
					pp++
				}
				if l == fmt.Sprint(fileLines(d.got)) {
					px++
				}
			}
			third[kd] = fmt.Sprintf(" (files and lines as llvm-symbolizer has them: pprof %d, pprofx %d)", pp, px)
		}
	}
	fmt.Printf("%d locations: %d agree (after pprof's known errors: %v)\n", len(keys), same, known)
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(kinds[names[i]]) > len(kinds[names[j]]) })
	for _, kd := range names {
		ex := kinds[kd]
		fmt.Printf("  %d: %s%s\n", len(ex), kd, third[kd])
		for _, e := range ex[:min(*n, len(ex))] {
			fmt.Println(e)
		}
	}
}
