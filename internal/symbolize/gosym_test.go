package symbolize_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/symbolize"
)

// A Go binary without DWARF (-ldflags=-w) is symbolized from its pclntab,
// and agrees with `go tool addr2line`; its mapping gets the GNU build id
// the Go linker writes too (pprof's choice), or else the Go build id.
func TestGoBinaryWithoutDWARF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	prog := `package main

import "fmt"

//go:noinline
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

func main() { fmt.Println(work(10)) }
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "goprog")
	cmd := exec.Command(gotool, "build", "-ldflags=-w", "-o", bin, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0", "GOFLAGS=", "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	if f.Section(".debug_info") != nil {
		t.Fatal("the binary has DWARF")
	}
	syms, _ := f.Symbols()
	var addrs []uint64
	for _, s := range syms {
		switch s.Name {
		case "main.work", "main.main", "fmt.Fprintln", "runtime.mallocgc":
			addrs = append(addrs, s.Value, s.Value+5, s.Value+s.Size/2)
		}
	}
	var text elf.ProgHeader
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text = p.ProgHeader
		}
	}
	f.Close()
	if len(addrs) != 12 {
		t.Fatalf("found %d addresses", len(addrs))
	}

	p := model.New()
	p.Strings = append(p.Strings, "/elsewhere/goprog")
	p.Mappings = []model.Mapping{{Start: text.Vaddr &^ 0xfff, Limit: (text.Vaddr + text.Memsz + 0xfff) &^ 0xfff, Offset: text.Off &^ 0xfff, File: 1}}
	for _, a := range addrs {
		p.Locations = append(p.Locations, model.Location{Address: a, Mapping: 0})
	}
	var warns []string
	symbolize.Symbolize(p, symbolize.Options{Mode: symbolize.Local, Dirs: []string{dir}, DebugRoots: []string{},
		NoOriginalPath: true, Warn: func(s string) { warns = append(warns, s) }})
	if len(warns) > 0 {
		t.Errorf("warnings: %q", warns)
	}

	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "%#x\n", a)
	}
	cmd = exec.Command(gotool, "tool", "addr2line", bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool addr2line: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2*len(addrs) {
		t.Fatalf("addr2line: %q", out)
	}
	for i, l := range p.Locations {
		want := lines[2*i] + " " + lines[2*i+1]
		ll := p.LinesOf(&l)
		if len(ll) != 1 {
			t.Errorf("%#x: %d lines", l.Address, len(ll))
			continue
		}
		fn := p.Functions[ll[0].Function]
		got := fmt.Sprintf("%s %s:%d", p.String(fn.Name), p.String(fn.Filename), ll[0].Line)
		if got != want {
			t.Errorf("%#x: %s, go tool addr2line %s", l.Address, got, want)
		}
	}
	m := p.Mappings[0]
	if !m.HasFunctions || !m.HasFilenames || !m.HasLineNumbers || m.HasInlineFrames {
		t.Errorf("flags %+v", m)
	}
	want := ""
	if ef, err := elf.Open(bin); err == nil {
		if ef.Section(".note.gnu.build-id") != nil {
			want = gnuBuildID(t, bin)
		}
		ef.Close()
	}
	if want == "" {
		id, err := exec.Command(gotool, "tool", "buildid", bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		want = strings.TrimSpace(string(id))
	}
	if got := p.String(m.BuildID); got != want {
		t.Errorf("build id %q, want %q", got, want)
	}
}
