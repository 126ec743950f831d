package catch

import (
	"debug/dwarf"
	"errors"
	"strings"
	"testing"
)

// TestRecover: Recover turns a BadData panic and a runtime error raised inside
// debug/dwarf into errors, and lets any other panic go on.
func TestRecover(t *testing.T) {
	run := func(f func()) (err error, panicked any) {
		defer func() { panicked = recover() }()
		func() {
			defer Recover(&err)
			f()
		}()
		return err, nil
	}
	bad := errors.New("a count past the end")
	if err, p := run(func() { panic(BadData{bad}) }); err != bad || p != nil {
		t.Errorf("BadData: error %v, panic %v", err, p)
	}
	if err, p := run(func() { (*dwarf.Data)(nil).Reader() }); err == nil || p != nil || !strings.Contains(err.Error(), "bad ELF/DWARF data") {
		t.Errorf("a nil dereference in debug/dwarf: error %v, panic %v", err, p)
	}
	var s []int
	i := 3
	if err, p := run(func() { _ = s[i] }); err != nil || p == nil {
		t.Errorf("an index out of range here: error %v, panic %v (want it to go on)", err, p)
	}
	if err, p := run(func() { panic("a bug") }); err != nil || p != "a bug" {
		t.Errorf("a panic here: error %v, panic %v (want it to go on)", err, p)
	}
}
