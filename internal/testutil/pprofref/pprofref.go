// Package pprofref runs google/pprof's own command, at the version
// pprofx's go.mod pins, as the reference of the tests that must agree
// with pprof (diff, filters, top). Only tests import it.
//
// The command is built once per machine with `go install
// github.com/google/pprof@VERSION` into the user's cache directory (the
// Go module proxy or cache must have it). Without it a test skips with a
// message, except under CI (CI set), where it fails.
package pprofref

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
)

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

var (
	once   sync.Once
	binary string
	err    error
)

// Version is the version of github.com/google/pprof that go.mod requires.
func Version() (string, error) {
	data, err := os.ReadFile(filepath.Join(Root(), "go.mod"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/google/pprof (\S+)`).FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("go.mod requires no github.com/google/pprof")
	}
	return string(m[1]), nil
}

func build() (string, error) {
	v, err := Version()
	if err != nil {
		return "", err
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command on PATH")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pprofx-pprofref", v)
	bin := filepath.Join(dir, "pprof")
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(gobin, "install", "github.com/google/pprof@"+v)
	// Outside pprofx's module: pkg@version builds pprof with its own go.mod.
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "CGO_ENABLED=0", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go install github.com/google/pprof@%s: %v: %s", v, err, strings.TrimSpace(stderr.String()))
	}
	if err := os.Rename(filepath.Join(tmp, "pprof"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// Command returns the path of google/pprof's command.
func Command(t testing.TB) string {
	t.Helper()
	once.Do(func() { binary, err = build() })
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("google/pprof reference: %v", err)
		}
		t.Skipf("google/pprof reference not available (%v); CI runs this test", err)
	}
	return binary
}

// Run runs google/pprof's command with -symbolize=none and args and
// returns its standard output.
func Run(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(Command(t), append([]string{"-symbolize=none"}, args...)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "PPROF_BINARY_PATH=/nonexistent")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pprof %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// Proto runs pprof -proto with args and returns the profile it writes,
// as pprof's library reads it.
func Proto(t testing.TB, args ...string) *profile.Profile {
	t.Helper()
	out := Run(t, append([]string{"-proto"}, args...)...)
	p, err := profile.ParseData(out)
	if err != nil {
		t.Fatalf("pprof -proto %s: its output does not parse: %v", strings.Join(args, " "), err)
	}
	return p
}

// Read is p as pprof's library reads pprofx's pprof output of it: the
// side of a comparison with Proto that pprofx made.
func Read(t testing.TB, p *model.Profile) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Encode(&buf, p, pprof.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	pp, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return pp
}
