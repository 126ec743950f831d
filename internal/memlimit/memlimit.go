// Package memlimit finds how much memory pprofx may use and tells whether
// an input can be decoded within it.
//
// Decoding an input of n decompressed bytes takes at most Bound(n):
// 64 MiB + 4 x n (the input once, its tables and samples, the runtime).
// The limit is the smallest of: the address-space limit (RLIMIT_AS, ulimit
// -v) less what the process has already reserved, the cgroup v2
// memory.max it runs under less what it uses, GOMEMLIMIT and --max-memory.
// An input whose bound is more than that is refused before it is decoded,
// in one line, rather than started and left to run out of memory.
package memlimit

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
)

// Fixed is what any run may take beyond PerByte times its input: the Go
// runtime, buffers, a small input's tables.
const Fixed = 64 << 20

// PerByte is what a decode may take per byte of its decompressed input,
// the input itself included.
const PerByte = 4

// Bound is what a run that decodes an input of n decompressed bytes may
// take in all (its peak resident memory).
func Bound(n int64) int64 {
	if n > (math.MaxInt64-Fixed)/PerByte {
		return math.MaxInt64
	}
	return Fixed + PerByte*n
}

// Headroom is what a decode takes beyond PerByte times its input once the
// process runs (buffers, decompressors); the rest of Fixed is the runtime
// and the program, which a Limit's Avail already leaves out.
const Headroom = 16 << 20

// Need is what decoding an input of n decompressed bytes may add to what
// the process holds when the limit is found.
func Need(n int64) int64 {
	if n > (math.MaxInt64-Headroom)/PerByte {
		return math.MaxInt64
	}
	return Headroom + PerByte*n
}

// Source names where a limit comes from, as users set it.
type Source string

const (
	AddressSpace Source = "address-space limit (ulimit -v)"
	Cgroup       Source = "cgroup memory.max"
	GoMemLimit   Source = "GOMEMLIMIT"
	Flag         Source = "--max-memory"
)

// Limit is the memory pprofx may use.
type Limit struct {
	// Avail is what is left for decoding, from when the limit was found;
	// 0 means no limit is known.
	Avail int64
	// Total is the limit as set (ulimit -v's bytes, memory.max, ...).
	Total int64
	// Source names it.
	Source Source
	// Base is what the Go runtime held when Avail was found (0: not
	// known); what it took since is no longer left (Left).
	Base int64
	// Machine is the machine's memory (0: not known), which a decode is
	// held to when no limit is set: what would need more than the machine
	// has is refused rather than started (model.SetMachineMemory).
	Machine int64
}

// Left is what is left for decoding now: Avail, less what the Go runtime
// took since the limit was found (the profiles read before, by a command
// that reads several).
func (l Limit) Left() int64 {
	if l.Base <= 0 {
		return l.Avail
	}
	return max(l.Avail-max(goUsed()-l.Base, 0), 0)
}

// Known reports whether a limit is in force.
func (l Limit) Known() bool { return l.Total > 0 }

// MaxInput is the largest decompressed input whose Need fits the limit
// (math.MaxInt64 without a limit, 0 when not even an empty input fits).
func (l Limit) MaxInput() int64 {
	if !l.Known() {
		return math.MaxInt64
	}
	return max(0, (l.Left()-Headroom)/PerByte)
}

// Check refuses an input of raw decompressed bytes whose Need is more
// than the limit; what, when not "", names it ("bundle: profile 3").
func (l Limit) Check(what string, raw int64) error {
	if !l.Known() {
		return nil
	}
	left := l.Left()
	if raw <= max(0, (left-Headroom)/PerByte) {
		return nil
	}
	if l.Base > 0 {
		// What the runtime holds includes what it collected, or has yet
		// to, from what was read before (a bundle's earlier profiles,
		// summarized and dropped): collect it and hand it back, then
		// count again, before refusing.
		debug.FreeOSMemory()
		if left = l.Left(); raw <= max(0, (left-Headroom)/PerByte) {
			return nil
		}
	}
	if what != "" {
		what += ": "
	}
	return fmt.Errorf("%s%s decompressed may take up to %s more to decode (16 MiB + %d x its size), more than the %s left under the %s of %s: refused (--max-memory; the smallest of ulimit -v, cgroup memory.max, GOMEMLIMIT and --max-memory wins)",
		what, human(raw), human(Need(raw)), PerByte, human(left), l.Source, human(l.Total))
}

// TooLarge is Check's error for an input whose size is not known before
// it is read, once more than MaxInput bytes of it were.
func (l Limit) TooLarge() error {
	return fmt.Errorf("input is larger than %s decompressed, the most that can be decoded (16 MiB + %d x its size) in the %s left under the %s of %s: refused (--max-memory; the smallest of ulimit -v, cgroup memory.max, GOMEMLIMIT and --max-memory wins)",
		human(l.MaxInput()), PerByte, human(l.Left()), l.Source, human(l.Total))
}

// Detect finds the limit in force: flag is --max-memory (0: not given).
func Detect(flag int64) Limit {
	used := goUsed()
	var best Limit
	consider := func(total, avail int64, src Source) {
		if total <= 0 {
			return
		}
		avail = max(avail, 0)
		if !best.Known() || avail < best.Avail {
			best = Limit{Avail: avail, Total: total, Source: src, Base: used}
		}
	}
	if total, reserved := addressSpace(); total > 0 {
		// Go reserves address space at start-up (about 1.2 GiB on
		// linux/amd64 under a limit of a few GiB: the page allocator's
		// index, the first arenas) that a decode never uses as memory;
		// the margin covers thread stacks and heap arenas' rounding.
		consider(total, total-reserved-addressMargin, AddressSpace)
	}
	if total, rss := cgroupMax(); total > 0 {
		consider(total, total-rss, Cgroup)
	}
	// The runtime read GOMEMLIMIT at start-up; a limit set in the process
	// since (by a test, or a reader's own soft limit) is not the user's.
	if os.Getenv("GOMEMLIMIT") != "" {
		if gm := debug.SetMemoryLimit(-1); gm > 0 && gm < math.MaxInt64 {
			consider(gm, gm-used, GoMemLimit)
		}
	}
	if flag > 0 {
		consider(flag, flag-used, Flag)
	}
	best.Machine = machineMemory()
	return best
}

// addressMargin is what is kept of the address space beyond what was
// reserved at start-up, for what grows besides the heap.
const addressMargin = 64 << 20

// Apply sets the Go runtime's soft memory limit to what l leaves (the
// memory the runtime uses now plus l.Avail), unless a lower one is set,
// so that the garbage collector works harder as the limit nears.
func Apply(l Limit) {
	if !l.Known() {
		return
	}
	want := goUsed() + l.Avail
	if cur := debug.SetMemoryLimit(-1); want < cur {
		debug.SetMemoryLimit(want)
	}
}

// InUse is the memory the Go runtime holds now, as its memory limit
// counts it.
func InUse() int64 { return goUsed() }

func goUsed() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// ParseSize reads a size written plainly or with a unit: 2GiB, 512MiB,
// 64KiB, 1GB, 1000.
func ParseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(strings.ToLower(t), strings.ToLower(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (e.g. 2GiB, 512MiB, 1000000)", s)
	}
	return n * mult, nil
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
