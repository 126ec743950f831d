// Package catch turns the panics that reading bad ELF and DWARF data may
// raise into errors, and only those: a panic raised on purpose for bad
// input (BadData), and a runtime error raised inside the standard
// library's debug/elf, debug/dwarf or debug/gosym, which trust some counts
// in their input. Any other panic is a bug, and goes on, so that tests and
// fuzzing show it.
package catch

import (
	"fmt"
	"runtime"
	"strings"
)

// BadData is a panic raised on purpose for bad input, by a reader that
// finds the input past what it can read on: Recover turns it into Err.
type BadData struct{ Err error }

// Recover, deferred, turns into an error what reading a bad binary may
// panic with: a BadData, and a runtime error raised inside the standard
// library's debug/elf, debug/dwarf or debug/gosym, which trust some counts
// in their input. Any other panic (a bug of the reader) goes on as it was.
func Recover(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if b, ok := r.(BadData); ok {
		*err = b.Err
		return
	}
	if inStdDebug() {
		*err = fmt.Errorf("bad ELF/DWARF data (%v)", r)
		return
	}
	panic(r)
}

// inStdDebug reports whether the panic being recovered (Recover's caller
// is the deferred call) was raised inside debug/elf, debug/dwarf or
// debug/gosym: whether, going out from where it was raised, a frame of
// those packages comes before any frame outside the standard library.
// The frames of the panic are still on the stack while deferred calls
// run.
func inStdDebug() bool {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(3, pcs) // runtime.Callers, inStdDebug, Recover
	frames := runtime.CallersFrames(pcs[:n])
	panicking := false
	for {
		f, more := frames.Next()
		fn := f.Function
		switch {
		case !panicking:
			panicking = fn == "runtime.gopanic"
		case strings.HasPrefix(fn, "runtime."):
		case strings.HasPrefix(fn, "debug/elf.") || strings.HasPrefix(fn, "debug/dwarf.") || strings.HasPrefix(fn, "debug/gosym."):
			return true
		case !stdPackage(fn):
			return false
		}
		if !more {
			return false
		}
	}
}

// stdPackage reports whether the function named fn (as runtime.Frame
// names it: an import path, a dot, the function) is in the standard
// library, whose import paths have no dot in their first element.
func stdPackage(fn string) bool {
	path := fn
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		path = path[:i]
	} else if i := strings.IndexByte(path, '.'); i >= 0 {
		path = path[:i]
	}
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
