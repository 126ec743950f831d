package speedscope_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/speedscope"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// framesOf encodes p and returns each frame's name and file.
func framesOf(t *testing.T, p *model.Profile) map[string]string {
	t.Helper()
	var buf bytes.Buffer
	if err := speedscope.Encode(&buf, p, speedscope.Options{}); err != nil {
		t.Fatal(err)
	}
	var f struct {
		Shared struct{ Frames []struct{ Name, File string } }
	}
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, fr := range f.Shared.Frames {
		out[fr.Name] = fr.File
	}
	return out
}

// A frame's file is that of the first function of its name that has one;
// a frame named by a system name, or by an address, has none.
func TestFrameFiles(t *testing.T) {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	p.Functions = []model.Function{
		{Name: b.String("a"), Filename: b.String("a.go")},
		{Name: b.String("b")},
		{Name: b.String("a"), Filename: b.String("other.go")},
		{Name: b.String("c"), Filename: b.String("c.go")},
		{SystemName: b.String("d"), Filename: b.String("d.go")},
		{Name: b.String("b"), Filename: b.String("b.go")},
	}
	var frames []int32
	for f := range p.Functions {
		frames = append(frames, p.AddLocation(model.Location{Address: uint64(0x1000 + f), Mapping: model.NoMapping}, model.Line{Function: int32(f), Line: 1}))
	}
	frames = append(frames, p.AddLocation(model.Location{Address: 0x4011a6, Mapping: model.NoMapping}))
	p.Samples = []model.Sample{model.NewSample(b.Stack(frames), []int64{1})}
	got := framesOf(t, p)
	want := map[string]string{"a": "a.go", "b": "b.go", "c": "c.go", "d": "", "0x4011a6": ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("frames and files %v, want %v", got, want)
	}
}

// Finding the functions' files takes 8 to 16 bytes a function (a hash
// index of their numbers) and 4 a frame name: writing 200k functions of
// their own files, each its own frame, holds at most 110 bytes a function
// beside the profile (the frames' names and stacks included). A map from
// every name to its file took 128.
func TestFrameFilesMemory(t *testing.T) {
	const n = 200_000
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	frames := make([]int32, n)
	for i := range n {
		p.Functions = append(p.Functions, model.Function{Name: b.String(fmt.Sprintf("fn%d", i)), Filename: b.String(fmt.Sprintf("file%d.go", i))})
		frames[i] = p.AddLocation(model.Location{Address: uint64(0x1000 + i), Mapping: model.NoMapping}, model.Line{Function: int32(i), Line: 1})
	}
	p.Samples = []model.Sample{model.NewSample(b.Stack(frames), []int64{1})}
	least := ^uint64(0)
	for range 3 {
		peak := memcheck.Peak(func() {
			if err := speedscope.Encode(io.Discard, p, speedscope.Options{}); err != nil {
				t.Fatal(err)
			}
		})
		least = min(least, peak)
	}
	t.Logf("%d functions: %d bytes a function at most", n, least/n)
	if least > 110*n {
		t.Errorf("writing held %d bytes a function at once, want 110 or less", least/n)
	}
}
