package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestMain lets the test binary stand in for pprofx: with
// PPROFX_TEST_AS_MAIN=1 it runs pprofx on its arguments, so that shell
// lines can call "pprofx" (a script on PATH that runs this binary).
func TestMain(m *testing.M) {
	if os.Getenv("PPROFX_TEST_AS_MAIN") == "1" {
		os.Exit(Execute())
	}
	os.Exit(m.Run())
}

// examples returns every --help example line of cmd and its subcommands,
// with the command's path.
func examples(cmd *cobra.Command) (lines, paths []string) {
	for _, l := range strings.Split(cmd.Example, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines, paths = append(lines, l), append(paths, cmd.CommandPath())
		}
	}
	for _, c := range cmd.Commands() {
		l, p := examples(c)
		lines, paths = append(lines, l...), append(paths, p...)
	}
	return lines, paths
}

// TestHelpExamples pastes every --help example into bash, in a directory
// holding the real fixtures under the names the examples use, with
// pprofx on PATH: each must succeed, and say nothing on stderr but
// warnings. Examples for zsh, fish and PowerShell (marked by a trailing
// comment) run in that shell when it is installed; else only their
// pprofx part runs.
func TestHelpExamples(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	for _, d := range []string{bin, work, home, filepath.Join(work, "profiles")} {
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
	td := func(n string) []byte { return mustRead(t, filepath.Join("..", "..", "testdata", n)) }
	files := map[string][]byte{
		"cpu.pb.gz": td("go/cpu.pb.gz"), "heap.pb.gz": td("go/heap.pb.gz"), "cpu.prof": td("gperftools/le64-100hz.prof"),
		"cpu-1.pb.gz": td("go/cpu.pb.gz"), "cpu-2.pb.gz": td("pprof/cpu-merged.pb.gz"), "heap.pb": gunzipAll(t, td("go/heap.pb.gz")),
	}
	gos, _ := filepath.Glob("../../testdata/go/*.pb.gz")
	for _, f := range gos {
		files[filepath.Join("profiles", filepath.Base(f))] = td("go/" + filepath.Base(f))
	}
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(work, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// HOME is a scratch one (an example writes under ~); Go keeps its
	// caches, so that "go tool pprof" need not be built again.
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home)
	for _, v := range []string{"GOCACHE", "GOPATH", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	sh := func(shell, line string) (string, string, error) {
		cmd := exec.Command(shell, "-c", line)
		if shell == "bash" {
			cmd = exec.Command("bash", "-o", "pipefail", "-c", line)
		}
		cmd.Dir, cmd.Env = work, env
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	// Examples written to be pasted at the repository's root name
	// testdata/ files; the symbolize examples name a build folder and an
	// unsymbolized profile of its binaries.
	repoTestdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(repoTestdata, filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repoTestdata, "symbolize", "bin"), filepath.Join(work, "build")); err != nil {
		t.Fatal(err)
	}
	// Bundles the examples read, made by pprofx.
	for _, l := range []string{
		"pprofx convert testdata/symbolize/cxxprog.prof --symbolize=off -o unsymbolized.pb.gz",
		"pprofx convert cpu.pb.gz -o cpu.otlp",
		"pprofx merge profiles/*.pb.gz -o all.ppxb && cp all.ppxb week.ppxb",
		"pprofx merge cpu-1.pb.gz -o day1.ppxb && pprofx merge cpu-2.pb.gz heap.pb.gz -o day2.ppxb",
	} {
		if _, e, err := sh("bash", l); err != nil {
			t.Fatalf("%s: %v %s", l, err, e)
		}
	}

	lines, paths := examples(NewRootCmd(System()))
	if len(lines) < 20 {
		t.Fatalf("only %d examples", len(lines))
	}
	shells := map[string]string{"# zsh": "zsh", "# fish": "fish", "# PowerShell": "pwsh"}
	for i, line := range lines {
		shell := "bash"
		for mark, s := range shells {
			if strings.HasSuffix(line, mark) {
				shell = s
			}
		}
		if _, err := exec.LookPath(shell); err != nil {
			// Not installed here: run the pprofx part.
			f := strings.Fields(strings.NewReplacer("<(", " ", ")", " ").Replace(line))
			k := 0
			for k < len(f) && f[k] != "pprofx" {
				k++
			}
			if k+2 >= len(f) {
				t.Errorf("%s: %q: no pprofx command in it", paths[i], line)
				continue
			}
			t.Logf("%s not installed: running %q of %q", shell, strings.Join(f[k:k+3], " "), line)
			line, shell = strings.Join(f[k:k+3], " "), "bash"
		}
		if strings.Contains(line, "pprofx push") && !strings.Contains(line, "--dry-run") {
			// These send to a collector on localhost:4317/4318, which this
			// test does not run; internal/push/collectortest's
			// TestHelpExamples runs them against a real one.
			t.Logf("%s: run by internal/push/collectortest (needs a collector): %q", paths[i], line)
			continue
		}
		out, errOut, err := sh(shell, line)
		if strings.Contains(line, "exit 1") {
			// An example that shows a failure: it must fail, with exit 1.
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("%s example %q: %v, want exit status 1", paths[i], line, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s example %q: %v\nstderr: %s", paths[i], line, err, errOut)
			continue
		}
		for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
			summary := strings.HasPrefix(l, "pprofx: pushed ") || strings.HasPrefix(l, "pprofx: wrote (dry run) ")
			if l != "" && strings.HasPrefix(l, "pprofx: ") && !strings.Contains(l, ": warning: ") && !summary {
				t.Errorf("%s example %q: stderr %q", paths[i], line, l)
			}
		}
		if strings.Contains(line, "| jq") && strings.TrimSpace(out) == "" {
			t.Errorf("%s example %q: jq printed nothing", paths[i], line)
		}
	}

	// What the completion scripts ask pprofx for completes; with the
	// bash-completion package installed, the bash script itself does.
	out, errOut, err := sh("bash", `pprofx __complete conv`)
	if err != nil || !strings.HasPrefix(out, "convert\t") {
		t.Errorf("pprofx __complete conv: %q, %v %s", out, err, errOut)
	}
	const bashCompletion = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(bashCompletion); err == nil {
		out, errOut, err := sh("bash", `source `+bashCompletion+` && source <(pprofx completion bash) && COMP_WORDS=(pprofx conv) && COMP_CWORD=1 && COMP_LINE="pprofx conv" && COMP_POINT=${#COMP_LINE} && __start_pprofx && echo "${COMPREPLY[*]}"`)
		if err != nil || !strings.Contains(out, "convert") {
			t.Errorf("bash completion of 'pprofx conv': %q, %v %s", out, err, errOut)
		}
	} else {
		t.Logf("%s not installed: the bash script's own completion is not run", bashCompletion)
	}
}
