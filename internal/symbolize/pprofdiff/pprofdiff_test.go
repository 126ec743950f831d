package pprofdiff

import "testing"

func TestCompDirTwice(t *testing.T) {
	for _, c := range []struct {
		got, want string
		twice     bool
	}{
		{"./app/relprog.c", "./app/./app/relprog.c", true},
		{"./stdlib/msort.c", "./stdlib/./stdlib/msort.c", true},
		{"./app/../lib/mix.h", "./app/../lib/mix.h", false}, // the same
		{"/src/x.c", "/src//src/x.c", false},                // absolute: not a relative comp dir
		{"./app/relprog.c", "./app/relprog.c.orig", false},
		{"relprog.c", "relprog.c/relprog.c", false},
	} {
		if got := CompDirTwice(c.got, c.want); got != c.twice {
			t.Errorf("CompDirTwice(%q, %q) = %v", c.got, c.want, got)
		}
	}
}

func TestKnown(t *testing.T) {
	f := func(name, sys, file string, line int64) Frame { return Frame{name, sys, file, line} }
	outer := f("geo::Cloud::sortByNorm", "_ZN3geo5Cloud10sortByNormEv", "cxxprog.cc", 53)
	got := []Frame{f("std::__sort", "_ZSt6__sort", "stl_algo.h", 1937), outer}
	// addr2line names the inlined frame after the function it is in.
	want := []Frame{f(outer.Name, outer.SystemName, "stl_algo.h", 1937), outer}
	if k := Known(0, got, want); k != "inlined-named-as-caller" {
		t.Errorf("inlined frame named as its caller: %q", k)
	}
	// Another line is never a known error.
	want[0].Line = 1936
	if k := Known(0, got, want); k != "" {
		t.Errorf("another line: %q", k)
	}
	outerGot := f("std::__introsort_loop", "_ZSt16__introsort_loopIPiEvT_", "stl_algo.h", 1921)
	outerWant := f("__introsort_loop", "__introsort_loop<int*>", "stl_algo.h", 1921)
	got = []Frame{f("inner", "inner", "a.h", 1), outerGot}
	want = []Frame{got[0], outerWant}
	if k := Known(1, got, want); k != "unqualified-outer-name" {
		t.Errorf("unqualified outer name: %q", k)
	}
	got = []Frame{f("main", "main", "./app/relprog.c", 19)}
	want = []Frame{f("main", "main", "./app/./app/relprog.c", 19)}
	if k := Known(0, got, want); k != "comp-dir-twice" {
		t.Errorf("comp dir twice: %q", k)
	}
	want[0].Name = "other"
	if k := Known(0, got, want); k != "" {
		t.Errorf("another name and the comp dir twice: %q", k)
	}
	if _, ok := NoLineFile("??:?"); !ok {
		t.Error(`"??:?" is not taken for no line`)
	}
	if f, ok := NoLineFile("a.c"); ok || f != "a.c" {
		t.Error("a file name taken for no line")
	}
}
