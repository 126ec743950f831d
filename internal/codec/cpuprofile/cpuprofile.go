// Package cpuprofile reads V8's CPU profile, the JSON that
// `node --cpu-prof` and Chrome DevTools write (.cpuprofile): a tree of
// call frames ("nodes"), and the samples as the node each was taken in
// with the time since the sample before it ("samples", "timeDeltas", in
// microseconds).
//
// The profile has two sample types, as google's pprof-nodejs names those
// of its time profiles: sample/count (one per V8 sample) and
// wall/nanoseconds (each sample lasts until the next one; the last until
// endTime). V8 samples on a timer whether the thread runs JavaScript or
// not, hence wall time; idle time is the (idle) frame. Samples are summed
// per tree node: V8's times are those of a monotonic clock with no known
// relation to the Unix epoch, so no sample timestamps are kept.
package cpuprofile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// Options control Decode.
type Options struct {
	// Warn is told about what is read with a loss or a doubt.
	Warn func(string)
}

type callFrame struct {
	FunctionName string `json:"functionName"`
	ScriptID     string `json:"scriptId"`
	URL          string `json:"url"`
	LineNumber   int64  `json:"lineNumber"`
	ColumnNumber int64  `json:"columnNumber"`
}

type node struct {
	ID        int64     `json:"id"`
	CallFrame callFrame `json:"callFrame"`
	HitCount  int64     `json:"hitCount"`
	Children  []int64   `json:"children"`
	// positionTicks (hits per source line) count hitCount, which is not
	// the samples' count: not read.
}

type cpuProfile struct {
	Nodes      []node  `json:"nodes"`
	StartTime  *int64  `json:"startTime"`
	EndTime    *int64  `json:"endTime"`
	Samples    []int64 `json:"samples"`
	TimeDeltas []int64 `json:"timeDeltas"`
}

// Decode reads a V8 CPU profile, whole.
func Decode(data []byte, opts Options) (*model.Profile, error) {
	// Unmarshal reads data in place (a Decoder would copy it into a
	// buffer of its own, grown as it reads).
	var in cpuProfile
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, jsonError(data, err)
	}
	return convert(&in, opts)
}

// jsonError names the byte at which encoding/json failed.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && strings.HasSuffix(se.Error(), "after top-level value"):
		return fmt.Errorf("cpuprofile: byte %d: data after the profile's JSON object", se.Offset-1)
	case errors.As(err, &se) && se.Error() == "unexpected end of JSON input":
		return fmt.Errorf("cpuprofile: byte %d: the JSON is cut short", len(data))
	case errors.As(err, &se):
		return fmt.Errorf("cpuprofile: byte %d: %v", se.Offset, err)
	case errors.As(err, &te):
		return fmt.Errorf("cpuprofile: byte %d: %s is a JSON %s, want %s", te.Offset, te.Field, te.Value, te.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("cpuprofile: byte %d: the JSON is cut short", len(data))
	}
	return fmt.Errorf("cpuprofile: %v", err)
}

func convert(in *cpuProfile, opts Options) (*model.Profile, error) {
	if len(in.Nodes) == 0 {
		return nil, fmt.Errorf("cpuprofile: no nodes")
	}
	if in.StartTime == nil || in.EndTime == nil {
		return nil, fmt.Errorf("cpuprofile: no startTime or endTime")
	}
	if len(in.TimeDeltas) != len(in.Samples) {
		return nil, fmt.Errorf("cpuprofile: %d samples but %d timeDeltas", len(in.Samples), len(in.TimeDeltas))
	}
	index := make(map[int64]int, len(in.Nodes))
	for i, n := range in.Nodes {
		if _, dup := index[n.ID]; dup {
			return nil, fmt.Errorf("cpuprofile: nodes[%d]: id %d is taken by another node", i, n.ID)
		}
		index[n.ID] = i
	}
	parent := make([]int, len(in.Nodes))
	for i := range parent {
		parent[i] = -1
	}
	for i, n := range in.Nodes {
		for _, c := range n.Children {
			j, ok := index[c]
			if !ok {
				return nil, fmt.Errorf("cpuprofile: nodes[%d] (id %d): child %d is not a node", i, n.ID, c)
			}
			if parent[j] >= 0 || j == i {
				return nil, fmt.Errorf("cpuprofile: nodes[%d] (id %d): child %d has another parent", i, n.ID, c)
			}
			parent[j] = i
		}
	}

	// Counts and durations per node. Each sample lasts the next delta; the
	// last one until endTime.
	counts := make([]int64, len(in.Nodes))
	wall := make([]int64, len(in.Nodes))
	t := *in.StartTime
	negative := 0
	for i, id := range in.Samples {
		j, ok := index[id]
		if !ok {
			return nil, fmt.Errorf("cpuprofile: samples[%d]: node %d is not in nodes", i, id)
		}
		var err error
		if t, err = add(t, in.TimeDeltas[i]); err != nil {
			return nil, fmt.Errorf("cpuprofile: timeDeltas[%d]: %v", i, err)
		}
		next := *in.EndTime
		if i+1 < len(in.Samples) {
			if next, err = add(t, in.TimeDeltas[i+1]); err != nil {
				return nil, fmt.Errorf("cpuprofile: timeDeltas[%d]: %v", i+1, err)
			}
		}
		d := next - t
		if d < 0 {
			negative++
			d = 0
		}
		if d > math.MaxInt64/1000 || wall[j] > math.MaxInt64-d*1000 {
			return nil, fmt.Errorf("cpuprofile: samples[%d]: the time overflows", i)
		}
		counts[j]++
		wall[j] += d * 1000
	}
	if negative > 0 && opts.Warn != nil {
		opts.Warn(fmt.Sprintf("cpuprofile: %d samples end before they start (a negative time delta, or a last sample after endTime): counted with no wall time", negative))
	}

	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{
		{Type: b.String("sample"), Unit: b.String("count")},
		{Type: b.String("wall"), Unit: b.String("nanoseconds")},
	}
	p.PeriodType = p.SampleTypes[1]
	if d := *in.EndTime - *in.StartTime; d > 0 && d < math.MaxInt64/1000 {
		p.DurationNanos = d * 1000
	}
	fr := newFrames(b)
	loc := make([]int32, len(in.Nodes)) // location+1 of each node; 0: not yet
	var stack []int32
	for j := range in.Nodes {
		if counts[j] == 0 {
			continue
		}
		stack = stack[:0]
		for k, depth := j, 0; k >= 0; k, depth = parent[k], depth+1 {
			if depth > len(in.Nodes) {
				return nil, fmt.Errorf("cpuprofile: nodes[%d] (id %d): the tree has a cycle", k, in.Nodes[k].ID)
			}
			if parent[k] < 0 && in.Nodes[k].CallFrame.FunctionName == "(root)" {
				break // the root of every stack
			}
			if loc[k] == 0 {
				loc[k] = fr.location(in.Nodes[k].CallFrame) + 1
			}
			stack = append(stack, loc[k]-1)
		}
		p.Samples = append(p.Samples, model.NewSample(b.Stack(stack), []int64{counts[j], wall[j]}))
	}
	return p, nil
}

// add returns t+d, or an error if it overflows.
func add(t, d int64) (int64, error) {
	if d > 0 && t > math.MaxInt64-d || d < 0 && t < math.MinInt64-d {
		return 0, fmt.Errorf("the time overflows")
	}
	return t + d, nil
}

// frames makes one location per distinct call frame, and one function per
// distinct name, url and start.
type frames struct {
	b     *model.Builder
	locs  map[callFrame]int32
	funcs map[[3]any]int32
}

func newFrames(b *model.Builder) *frames {
	return &frames{b: b, locs: map[callFrame]int32{}, funcs: map[[3]any]int32{}}
}

// location returns the location of a call frame: its function named by
// functionName ("(anonymous)" when empty), in the file url, starting at
// lineNumber+1; the line and column V8 gives (0-based, the function's
// start) one-based.
func (f *frames) location(cf callFrame) int32 {
	cf.ScriptID = "" // the url names the script
	if i, ok := f.locs[cf]; ok {
		return i
	}
	name := cf.FunctionName
	if name == "" {
		name = "(anonymous)"
	}
	line, col := cf.LineNumber+1, cf.ColumnNumber+1
	if cf.LineNumber < 0 {
		line, col = 0, 0
	} else if cf.ColumnNumber < 0 {
		col = 0
	}
	p := f.b.P
	key := [3]any{name, cf.URL, line}
	fi, ok := f.funcs[key]
	if !ok {
		fi = int32(len(p.Functions))
		p.Functions = append(p.Functions, model.Function{Name: f.b.String(name), SystemName: f.b.String(name), Filename: f.b.String(cf.URL), StartLine: line})
		f.funcs[key] = fi
	}
	i := p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: fi, Line: line})
	p.SetColumn(uint32(len(p.Lines)-1), col)
	f.locs[cf] = i
	return i
}
