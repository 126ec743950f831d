package memlimit

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBoundAndMaxInput(t *testing.T) {
	if got := Bound(100 << 20); got != 64<<20+400<<20 {
		t.Errorf("Bound(100 MiB) = %d", got)
	}
	l := Limit{Avail: 1 << 30, Total: 3 << 30, Source: AddressSpace}
	if got, want := l.MaxInput(), int64((1<<30-16<<20)/4); got != want {
		t.Errorf("MaxInput = %d, want %d", got, want)
	}
	if err := l.Check("x", l.MaxInput()); err != nil {
		t.Errorf("an input of MaxInput bytes refused: %v", err)
	}
	err := l.Check("pprof", l.MaxInput()+1)
	if err == nil {
		t.Fatal("an input one byte over MaxInput accepted")
	}
	for _, want := range []string{"pprof: 252.0 MiB decompressed", "1.0 GiB left", "ulimit -v", "3.0 GiB", "--max-memory"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if err := (Limit{}).Check("x", 1<<60); err != nil {
		t.Errorf("no limit, yet refused: %v", err)
	}
}

// --max-memory leaves what the flag names less what the runtime holds
// when it is read (which the tests run before it make larger).
func TestDetectFlag(t *testing.T) {
	used := goUsed()
	l := Detect(512 << 20)
	if !l.Known() || l.Avail > 512<<20 {
		t.Fatalf("Detect(512 MiB) = %+v", l)
	}
	// Unless the test runs under a lower limit, the flag is the one.
	if l.Source != Flag {
		if l.Total >= 512<<20 {
			t.Errorf("source %q for a limit of %d", l.Source, l.Total)
		}
		return
	}
	if l.Total != 512<<20 || l.Avail != max(l.Total-l.Base, 0) || l.Base < used-16<<20 || l.Base > used+16<<20 {
		t.Errorf("Detect(512 MiB) = %+v with %d bytes held before", l, used)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "2GiB": 2 << 30, "1000": 1000, "1GB": 1e9} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", in, got, err)
		}
	}
	if _, err := ParseSize("lots"); err == nil {
		t.Error("ParseSize(lots) accepted")
	}
}

// Left takes off what the runtime took since the limit was found; a
// limit found without a base leaves Avail.
func TestLeft(t *testing.T) {
	now := goUsed()
	if got := (Limit{Avail: 1 << 30, Total: 2 << 30}).Left(); got != 1<<30 {
		t.Errorf("no base: Left = %d, want %d", got, 1<<30)
	}
	if got := (Limit{Avail: 1 << 30, Total: 2 << 30, Base: now + 1<<40}).Left(); got != 1<<30 {
		t.Errorf("base above what is held: Left = %d, want %d", got, 1<<30)
	}
	// Base 1: all the runtime holds now was taken since.
	l := Limit{Avail: 1 << 30, Total: 2 << 30, Base: 1}
	if got, want := l.Left(), int64(1<<30)-now; got > want+16<<20 || got < want-16<<20 {
		t.Errorf("%d bytes taken since: Left = %d, want about %d", now, got, want)
	}
	if err := l.Check("x", (l.Avail-Headroom)/PerByte); err == nil {
		t.Errorf("Check of an input that fits Avail but not Left: no refusal")
	}
}

// Check collects what the runtime holds but no longer uses, and hands
// it back, before it refuses: a profile read and dropped does not count
// against the next.
func TestCheckCollectsFirst(t *testing.T) {
	debug.FreeOSMemory()
	l := Limit{Avail: 512 << 20, Total: 1 << 30, Source: Flag, Base: goUsed()}
	garbage := make([]byte, 256<<20)
	for i := 0; i < len(garbage); i += 4096 {
		garbage[i] = 1
	}
	runtime.KeepAlive(garbage)
	garbage = nil
	if left := l.Left(); left > 384<<20 {
		t.Skipf("the runtime gave the 256 MiB back at once (%d MiB left)", left>>20)
	}
	// Fits in what is left once the 256 MiB are collected, not before.
	raw := int64(400<<20-Headroom) / PerByte
	if err := l.Check("x", raw); err != nil {
		t.Errorf("Check refused an input that fits once the garbage is collected: %v", err)
	}
	// Still refuses what does not fit at all.
	if err := l.Check("x", (l.Avail+1)/PerByte); err == nil {
		t.Error("Check of an input past Avail: no refusal")
	}
}
