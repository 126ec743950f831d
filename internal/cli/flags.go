package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag value of bytes, written plainly or with a unit:
// 2GiB, 512MiB, 64KiB, 1GB, 1000.
type byteSize int64

// String writes the size in the largest binary unit that divides it, so
// that --help shows the default as 2GiB.
func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
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
		return fmt.Errorf("%q is not a size (e.g. 2GiB, 512MiB, 1000000)", s)
	}
	*b = byteSize(n * mult)
	return nil
}

// indexFlag is --index N: a profile's 0-based index, or -1 when not given
// (which --help does not show as a default).
type indexFlag int

func (x *indexFlag) String() string {
	if *x < 0 {
		return ""
	}
	return strconv.Itoa(int(*x))
}

func (x *indexFlag) Type() string { return "N" }

func (x *indexFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not an index (0, 1, 2, ...)", s)
	}
	*x = indexFlag(n)
	return nil
}
