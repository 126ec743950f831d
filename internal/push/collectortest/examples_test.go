package collectortest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/cli"
)

// TestHelpExamples runs the `pprofx push --help` examples that send to a
// collector on localhost (internal/cli's TestHelpExamples runs only the
// --dry-run ones), as pasted into bash, against the real collector: the
// collector listens on ports chosen at run time, so localhost:4318 and
// localhost:4317 in an example become its ports, and an example that
// names no endpoint (the default is http://localhost:4318) runs with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at it. Each must exit 0 and say
// nothing but warnings and its summary; the collector must hold every
// profile the summaries count.
func TestHelpExamples(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed")
	}
	var lines []string
	for _, l := range strings.Split(cli.NewCmdPush(cli.System(), nil).Example, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "--dry-run") {
			lines = append(lines, l)
		}
	}
	if len(lines) < 3 {
		t.Fatalf("only %d push examples that send", len(lines))
	}

	dir := t.TempDir()
	bin, work := filepath.Join(dir, "bin"), filepath.Join(dir, "work")
	for _, d := range []string{bin, work, filepath.Join(work, "profiles")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nPPROFX_TEST_AS_MAIN=1 exec '" + self + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "pprofx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The inputs the examples name, from the real fixtures.
	copyFile := func(from, to string) {
		data, err := os.ReadFile(filepath.Join(repo, "testdata", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("go/cpu.pb.gz", "cpu.pb.gz")
	copyFile("go/heap.pb.gz", "heap.pb.gz")
	copyFile("gperftools/le64-100hz.prof", "cpu.prof")
	gos, _ := filepath.Glob(filepath.Join(repo, "testdata/go/*.pb.gz"))
	for _, f := range gos {
		copyFile("go/"+filepath.Base(f), filepath.Join("profiles", filepath.Base(f)))
	}

	c := newCollector(t, collectorOpts{})
	c.start(t)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_EXPORTER_OTLP_") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+c.HTTP)
	sh := func(line string) (string, error) {
		cmd := exec.Command("bash", "-o", "pipefail", "-c", line)
		cmd.Dir, cmd.Env = work, env
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		return errb.String(), err
	}
	if e, err := sh("pprofx merge profiles/*.pb.gz -o all.ppxb"); err != nil {
		t.Fatalf("making all.ppxb: %v %s", err, e)
	}

	pushedRE := regexp.MustCompile(`^pprofx: pushed (\d+) profiles `)
	pushed := 0
	for _, example := range lines {
		line := strings.NewReplacer("localhost:4318", c.HTTP, "localhost:4317", c.GRPC).Replace(example)
		if line == example && strings.Contains(line, "--endpoint") {
			t.Errorf("%q: an endpoint that is not localhost:4318 or :4317", example)
			continue
		}
		errOut, err := sh(line)
		t.Logf("%s\n-> %v\n%s", line, err, errOut)
		if err != nil {
			t.Errorf("example %q: %v\nstderr: %s", example, err, errOut)
			continue
		}
		n := -1
		for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
			if m := pushedRE.FindStringSubmatch(l); m != nil {
				n, _ = strconv.Atoi(m[1])
				continue
			}
			if !strings.Contains(l, ": warning: ") {
				t.Errorf("example %q: stderr %q", example, l)
			}
		}
		if n <= 0 {
			t.Errorf("example %q pushed nothing, or gave no summary: %s", example, errOut)
		}
		pushed += n
	}
	if got := len(received(t, c.output(t))); got != pushed {
		t.Errorf("the examples pushed %d profiles, the collector holds %d", pushed, got)
	}
}
