// Package viewtest is shared by the tests of the stack views (folded,
// speedscope, flamegraph, top): the real fixtures, read as pprof, and
// `go tool pprof` run on them as the reference. Only tests import it.
package viewtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
)

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Fixture is a real profile under testdata, with the pprof file that
// `go tool pprof` is given for it.
type Fixture struct {
	Name    string // path under testdata
	Profile *model.Profile
	// Pprof is a pprof file of the same profile: the fixture itself, or,
	// for a gperftools file, pprofx's conversion of it (pprof's own
	// gperftools reader drops frames pprofx keeps).
	Pprof string
	// Addresses: the profile has no function names at all (a gperftools
	// file, a Go threadcreate profile); compare with pprof's -addresses.
	Addresses bool
}

// Fixtures reads every real fixture: testdata/go, testdata/pprof and
// testdata/gperftools.
func Fixtures(t testing.TB) []Fixture {
	t.Helper()
	root := Root()
	var out []Fixture
	for _, glob := range []string{"go/*.pb.gz", "pprof/*.pb.gz", "gperftools/*.prof"} {
		files, _ := filepath.Glob(filepath.Join(root, "testdata", glob))
		for _, f := range files {
			name, _ := filepath.Rel(filepath.Join(root, "testdata"), f)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in, err := formats.Read(bytes.NewReader(data), formats.ReadOptions{Warn: func(string) {}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			fx := Fixture{Name: name, Profile: in.Items[0].Profile, Pprof: f}
			fx.Addresses = len(fx.Profile.Functions) == 0
			if strings.HasPrefix(name, "gperftools/") {
				var buf bytes.Buffer
				if err := pprof.Encode(&buf, fx.Profile, pprof.EncodeOptions{}); err != nil {
					t.Fatal(err)
				}
				fx.Pprof = filepath.Join(t.TempDir(), filepath.Base(f)+".pb.gz")
				if err := os.WriteFile(fx.Pprof, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, fx)
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d fixtures found under %s/testdata", len(out), root)
	}
	return out
}

var (
	pprofOnce sync.Once
	pprofBin  string
	pprofErr  error
)

// Pprof runs `go tool pprof -symbolize=none ARGS...` and returns its
// output; the test is skipped when go is not on PATH.
func Pprof(t testing.TB, args ...string) string {
	t.Helper()
	pprofOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			return
		}
		// `go tool -n pprof` builds pprof once and names the binary, so
		// each run below skips the go command.
		out, err := exec.Command(gobin, "tool", "-n", "pprof").Output()
		if err != nil {
			pprofErr = err
			return
		}
		pprofBin = strings.TrimSpace(string(out))
	})
	if pprofErr != nil {
		t.Fatalf("go tool -n pprof: %v", pprofErr)
	}
	if pprofBin == "" {
		t.Skip("go not on PATH: no `go tool pprof` to compare with")
	}
	cmd := exec.Command(pprofBin, append([]string{"-symbolize=none"}, args...)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "PPROF_BINARY_PATH=/nonexistent")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// UnitFlag is the -unit flag that makes pprof print values of unit u
// unscaled, in u itself ("" when it prints them so anyway).
func UnitFlag(u string) []string {
	switch u {
	case "nanoseconds":
		return []string{"-unit=ns"}
	case "bytes":
		return []string{"-unit=B"}
	}
	return nil
}

// ParseValue reads a value pprof printed unscaled: a number with its unit
// ("10000000ns", "16B", "42").
func ParseValue(t testing.TB, s string) int64 {
	t.Helper()
	s = strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	var v int64
	var neg bool
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	if s == "" {
		t.Fatalf("pprof printed an empty value")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("pprof printed %q, not a whole number", s)
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v
}
