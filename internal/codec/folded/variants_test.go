package folded_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/detect"
)

func sniff(data []byte) detect.Format {
	res, _ := detect.Sniff(data[:min(len(data), detect.HeadSize)])
	return res.Format
}

func fold(t *testing.T, data []byte) string {
	t.Helper()
	p, err := folded.Decode(bytes.NewReader(data), folded.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := folded.Encode(&out, p, folded.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestEmptyFrames: "a;;b" and stackcollapse-perf.pl's ";  3" (an empty
// command and a frame named by white space) are read, each empty frame a
// frame with an empty name, written back as a frame with no name is
// (its address, 0x0).
func TestEmptyFrames(t *testing.T) {
	in := []byte("main;work 5\na;;b 3\n;  3\n")
	if f := sniff(in); f != detect.Folded {
		t.Fatalf("detected %q", f)
	}
	if got, want := fold(t, in), "0x0;0x0 3\na;0x0;b 3\nmain;work 5\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestUTF16: folded text in UTF-16 with a byte order mark (either order)
// or UTF-8 with one reads as the same stacks.
func TestUTF16(t *testing.T) {
	text := "main;wörk;𝔣 5\nmain;other 2\n"
	u := utf16.Encode([]rune(text))
	le := []byte{0xff, 0xfe}
	be := []byte{0xfe, 0xff}
	for _, c := range u {
		le = append(le, byte(c), byte(c>>8))
		be = append(be, byte(c>>8), byte(c))
	}
	want := "main;other 2\nmain;wörk;𝔣 5\n"
	for name, in := range map[string][]byte{"UTF-16LE": le, "UTF-16BE": be, "UTF-8 BOM": append([]byte("\xef\xbb\xbf"), text...)} {
		if f := sniff(in); f != detect.Folded {
			t.Errorf("%s: detected %q", name, f)
		}
		if got := fold(t, in); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
	}
	_, err := folded.Decode(bytes.NewReader(le[:len(le)-1]), folded.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "half a character") {
		t.Errorf("odd UTF-16: %v", err)
	}
}

// TestBracketFrames: async-profiler's bracketed frames (thread frames with
// --threads, "[no_Java_frame]" and the like) are frames like any other; a
// bracketed value is refused with its line.
func TestBracketFrames(t *testing.T) {
	in := []byte("[no_Java_frame] 3\n[main tid=7];java/lang/Thread.run_[j];[unknown_Java] 5\n")
	if f := sniff(in); f != detect.Folded {
		t.Fatalf("detected %q", f)
	}
	want := "[main tid=7];java/lang/Thread.run_[j];[unknown_Java] 5\n[no_Java_frame] 3\n"
	if got := fold(t, in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	_, err := folded.Decode(strings.NewReader("a;b 1\na;c [2]\n"), folded.ReadOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: value [2] in brackets") {
		t.Errorf("bracketed value: %v", err)
	}
}

// TestNotFolded: text whose first line happens to end in a number is not
// taken for folded stacks: Go's legacy threadcreate text, callgrind.
func TestNotFolded(t *testing.T) {
	for in, want := range map[string]detect.Format{
		"threadcreate profile: total 4\n4 @\n#\t0x0\n":                                            detect.LegacyText,
		"version: 1\ncreator: callgrind-3.19.0\npid: 3\ncmd: ./a\nevents: Ir\nfn=main\n0 3\n":     detect.Callgrind,
		"# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\nevents: Ir\n":                 detect.Callgrind,
		"positions: instr line\nevents: samples count\n\nob=(1) /bin/x\nfn=(1) main\n0x401 3 1\n": detect.Callgrind,
		"total 4\nsome words 3\n4 @ 0x45 0x46\n":                                                  detect.Unknown,
	} {
		if f := sniff([]byte(in)); f != want {
			t.Errorf("%q: detected %q, want %q", in, f, want)
		}
	}
}
