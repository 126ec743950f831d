package speedscope

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// ReadOptions control Decode.
type ReadOptions struct {
	// Warn is told about what is read with a loss or a doubt.
	Warn func(string)
}

// Profile is one profile of a speedscope file.
type Profile struct {
	Name    string
	Profile *model.Profile
}

type fileJSON = fileJSONOf[framesJSON]

// fileJSONOf is a speedscope file with its frame table read as F.
type fileJSONOf[F any] struct {
	Schema             string       `json:"$schema"`
	Name               string       `json:"name"`
	Exporter           string       `json:"exporter"`
	ActiveProfileIndex *int         `json:"activeProfileIndex"`
	Shared             *sharedOf[F] `json:"shared"`
	Profiles           []profileJSON
}

type sharedOf[F any] struct {
	Frames F `json:"frames"`
}

// framesJSON is the frame table, made at its size: appended to as it is
// read, a table of millions of frames was held one and a half to twice
// over while it grew (a frame takes 48 bytes, and 12 of text).
type framesJSON []frameJSON

// errFrames is a frame table that does not read: Decode reads the file
// again without framesJSON for the error encoding/json gives, with its
// place in the file.
var errFrames = errors.New("speedscope: shared.frames does not read")

func (f *framesJSON) UnmarshalJSON(b []byte) error {
	out := make([]frameJSON, 0, countElements(b))
	if err := json.Unmarshal(b, &out); err != nil {
		return errFrames
	}
	*f = out
	return nil
}

// numbersJSON is a list of numbers as their text, read into a list made
// at its size whose values are parts of one string: encoding/json grew
// the list by append, a weight taking 16 bytes and 2 of text.
type numbersJSON []json.Number

// UnmarshalJSON reads an array of numbers (null: none; null for a
// number: "", as encoding/json reads it), b being valid JSON.
func (ns *numbersJSON) UnmarshalJSON(b []byte) error {
	text := strings.TrimSpace(string(b))
	if text == "null" {
		*ns = nil
		return nil
	}
	out := make([]json.Number, 0, countElements(b))
	i := 1 // past '['
	ws := func() {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
			i++
		}
	}
	for k := 0; ; k++ {
		ws()
		if i >= len(text) || text[i] == ']' {
			break
		}
		if k > 0 {
			i++ // ','
			ws()
		}
		start := i
		i = numberEnd(text, i)
		switch {
		case start < i:
			out = append(out, json.Number(text[start:i]))
		case strings.HasPrefix(text[i:], "null"):
			i += 4
			out = append(out, "")
		default:
			return fmt.Errorf("weights[%d]: want a number", k)
		}
	}
	*ns = out
	return nil
}

// numberEnd returns the end of the number (of valid JSON) that starts at
// b[i], or i when none does.
func numberEnd[T ~string | ~[]byte](b T, i int) int {
	for i < len(b) && (b[i] == '-' || b[i] >= '0' && b[i] <= '9' || b[i] == '.' || b[i] == 'e' || b[i] == 'E' || b[i] == '+') {
		i++
	}
	return i
}

// countElements returns how many values the array b, valid JSON, holds
// (0 for anything else).
func countElements(b []byte) int {
	n, depth, any := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			any = any || depth == 1
		case '[', '{':
			depth++
			any = any || depth == 2
		case ']', '}':
			depth--
		case ',':
			if depth == 1 {
				n++
			}
		case ' ', '\t', '\n', '\r':
		default:
			any = any || depth == 1
		}
	}
	if !any {
		return 0
	}
	return n + 1
}

type frameJSON struct {
	Name string       `json:"name"`
	File string       `json:"file"`
	Line *json.Number `json:"line"`
	Col  *json.Number `json:"col"`
}

type profileJSON struct {
	Type       string      `json:"type"`
	Name       string      `json:"name"`
	Unit       string      `json:"unit"`
	StartValue json.Number `json:"startValue"`
	EndValue   json.Number `json:"endValue"`
	Samples    samplesJSON `json:"samples"`
	Weights    numbersJSON `json:"weights"`
	Events     []eventJSON `json:"events"`
}

// samplesJSON is a sampled profile's samples: sample j's frames, root
// first, are At(j). They are kept in one array made at its size, 4 bytes
// a frame: a sample may have millions, and a frame take 2 bytes of text.
type samplesJSON struct {
	frames []int32
	off    []uint32 // sample j is frames[off[j]:off[j+1]]
}

// Len is the number of samples.
func (s *samplesJSON) Len() int { return max(len(s.off)-1, 0) }

// At returns sample j's frames, root first.
func (s *samplesJSON) At(j int) []int32 { return s.frames[s.off[j]:s.off[j+1]:s.off[j+1]] }

// UnmarshalJSON reads an array of arrays of frame indices (null: none),
// b being valid JSON: once to count the samples and frames, once to fill
// the array made for them.
func (s *samplesJSON) UnmarshalJSON(b []byte) error {
	nsamples, nframes, err := scanSamples(b, nil, nil)
	if err != nil {
		return err
	}
	s.frames = make([]int32, 0, nframes)
	s.off = make([]uint32, 1, nsamples+1)
	_, _, err = scanSamples(b, &s.frames, &s.off)
	return err
}

// scanSamples walks the samples' JSON, counting them and their frames,
// and appends the frames and the samples' ends to frames and off when
// they are given.
func scanSamples(b []byte, frames *[]int32, off *[]uint32) (nsamples, nframes int, err error) {
	i := 0
	ws := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
	}
	// null: no samples; null for a sample: no frames.
	null := func() bool {
		ws()
		if len(b)-i >= 4 && string(b[i:i+4]) == "null" {
			i += 4
			return true
		}
		return false
	}
	if null() {
		return 0, 0, nil
	}
	if i >= len(b) || b[i] != '[' {
		return 0, 0, fmt.Errorf("samples: want an array of samples")
	}
	i++
	for ws(); i < len(b) && b[i] != ']'; ws() {
		if nsamples > 0 {
			i++ // ','
		}
		if !null() {
			ws()
			if i >= len(b) || b[i] != '[' {
				return 0, 0, fmt.Errorf("samples[%d]: want an array of frame indices", nsamples)
			}
			i++
			for k := 0; ; k++ {
				ws()
				if i < len(b) && b[i] == ']' {
					i++
					break
				}
				if k > 0 {
					i++ // ','
					ws()
				}
				start := i
				i = numberEnd(b, i)
				if start == i && null() {
					// As encoding/json reads null into a number: 0.
					if frames != nil {
						*frames = append(*frames, 0)
					}
					nframes++
					continue
				}
				if start == i {
					return 0, 0, fmt.Errorf("samples[%d][%d]: want a frame index", nsamples, k)
				}
				v, perr := strconv.ParseInt(string(b[start:i]), 10, 32)
				if perr != nil {
					return 0, 0, fmt.Errorf("samples[%d][%d]: %s is not a frame index (a whole number of 32 bits)", nsamples, k, b[start:i])
				}
				if frames != nil {
					*frames = append(*frames, int32(v))
				}
				nframes++
			}
		}
		nsamples++
		if off != nil {
			*off = append(*off, uint32(len(*frames)))
		}
	}
	return nsamples, nframes, nil
}

type eventJSON struct {
	Type  string      `json:"type"`
	Frame int         `json:"frame"`
	At    json.Number `json:"at"`
}

// units maps speedscope's units to the sample type pprofx gives a profile
// of that unit, and the factor to its unit.
var units = map[string]struct {
	typ, unit string
	factor    float64
}{
	"none":         {"samples", "count", 1},
	"nanoseconds":  {"time", "nanoseconds", 1},
	"microseconds": {"time", "nanoseconds", 1e3},
	"milliseconds": {"time", "nanoseconds", 1e6},
	"seconds":      {"time", "nanoseconds", 1e9},
	"bytes":        {"space", "bytes", 1},
}

// Decode reads a speedscope file, whole: one profile per profile of the
// file, or, for a file pprofx wrote (its profiles are the sample types of
// one profile), one profile with every sample type.
func Decode(data []byte, opts ReadOptions) ([]Profile, error) {
	// Unmarshal reads data in place (a Decoder would copy it into a
	// buffer of its own, grown as it reads).
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		if errors.Is(err, errFrames) {
			var g fileJSONOf[[]frameJSON]
			if err2 := json.Unmarshal(data, &g); err2 != nil {
				err = err2
			}
		}
		return nil, jsonError(data, err)
	}
	if f.Shared == nil {
		return nil, fmt.Errorf("speedscope: no shared.frames")
	}
	if len(f.Profiles) == 0 {
		return nil, fmt.Errorf("speedscope: no profiles")
	}
	d := &decoder{f: &f, warn: opts.Warn}
	if own, ok := d.ownTypes(); ok {
		p, err := d.merged(own)
		if err != nil {
			return nil, err
		}
		return []Profile{{Name: f.Name, Profile: p}}, nil
	}
	out := make([]Profile, len(f.Profiles))
	for i := range f.Profiles {
		p, err := d.profile(i)
		if err != nil {
			return nil, err
		}
		out[i] = Profile{Name: f.Profiles[i].Name, Profile: p}
	}
	return out, nil
}

func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && strings.HasSuffix(se.Error(), "after top-level value"):
		return fmt.Errorf("speedscope: byte %d: data after the file's JSON object", se.Offset-1)
	case errors.As(err, &se) && se.Error() == "unexpected end of JSON input":
		return fmt.Errorf("speedscope: byte %d: the JSON is cut short", len(data))
	case errors.As(err, &se):
		return fmt.Errorf("speedscope: byte %d: %v", se.Offset, err)
	case errors.As(err, &te):
		return fmt.Errorf("speedscope: byte %d: %s is a JSON %s, want %s", te.Offset, te.Field, te.Value, te.Type)
	}
	return fmt.Errorf("speedscope: %v", err)
}

type decoder struct {
	f    *fileJSON
	warn func(string)
	// rounded counts the values that were not whole in the target unit.
	rounded int
}

// ownTypes reports whether the file is pprofx's own: its exporter is
// pprofx, every profile is sampled and named "type/unit" with distinct
// names. The sample types are then those names.
func (d *decoder) ownTypes() ([][2]string, bool) {
	if !strings.HasPrefix(d.f.Exporter, "pprofx ") && d.f.Exporter != "pprofx" {
		return nil, false
	}
	seen := map[string]bool{}
	var types [][2]string
	for _, p := range d.f.Profiles {
		i := strings.LastIndexByte(p.Name, '/')
		if p.Type != "sampled" || i <= 0 || i == len(p.Name)-1 || seen[p.Name] {
			return nil, false
		}
		seen[p.Name] = true
		types = append(types, [2]string{p.Name[:i], p.Name[i+1:]})
	}
	return types, true
}

// tables builds a profile's locations from the frames, as used.
type tables struct {
	b     *model.Builder
	d     *decoder
	locs  []int32 // location+1 of each frame; 0: none yet
	funcs map[[2]string]int32
	stack []int32
}

func (d *decoder) newTables() *tables {
	return &tables{b: model.NewBuilder(), d: d, locs: make([]int32, len(d.f.Shared.Frames)), funcs: map[[2]string]int32{}}
}

// location returns frame i's location: a function named as the frame, in
// its file, at its line and column.
func (t *tables) location(i int) (int32, error) {
	if i < 0 || i >= len(t.locs) {
		return 0, fmt.Errorf("frame %d is not in shared.frames (%d frames)", i, len(t.locs))
	}
	if t.locs[i] > 0 {
		return t.locs[i] - 1, nil
	}
	fr := t.d.f.Shared.Frames[i]
	p := t.b.P
	key := [2]string{fr.Name, fr.File}
	fi, ok := t.funcs[key]
	if !ok {
		fi = int32(len(p.Functions))
		p.Functions = append(p.Functions, model.Function{Name: t.b.String(fr.Name), SystemName: t.b.String(fr.Name), Filename: t.b.String(fr.File)})
		t.funcs[key] = fi
	}
	line, err := wholeNumber(fr.Line)
	if err != nil {
		return 0, fmt.Errorf("shared.frames[%d].line: %v", i, err)
	}
	col, err := wholeNumber(fr.Col)
	if err != nil {
		return 0, fmt.Errorf("shared.frames[%d].col: %v", i, err)
	}
	l := p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: fi, Line: line})
	p.SetColumn(uint32(len(p.Lines)-1), col)
	t.locs[i] = l + 1
	return l, nil
}

func wholeNumber(n *json.Number) (int64, error) {
	if n == nil {
		return 0, nil
	}
	v, err := n.Int64()
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s is not a whole number of 0 or more", n.String())
	}
	return v, nil
}

// stackOf returns the stack id of a root-first list of frames.
func (t *tables) stackOf(frames []int) (int32, error) {
	t.stack = t.stack[:0]
	for j := len(frames) - 1; j >= 0; j-- {
		l, err := t.location(frames[j])
		if err != nil {
			return 0, err
		}
		t.stack = append(t.stack, l)
	}
	return t.b.Stack(t.stack), nil
}

// sampleStack returns the stack id of a sample's root-first frames,
// which it turns, in place, into the stack's locations, leaf first: a
// sample is read once.
func (t *tables) sampleStack(frames []int32) (int32, error) {
	slices.Reverse(frames)
	for j, f := range frames {
		l, err := t.location(int(f))
		if err != nil {
			return 0, err
		}
		frames[j] = l
	}
	return t.b.Stack(frames), nil
}

// value converts a weight to the target unit, rounding to a whole number.
func (d *decoder) value(n json.Number, factor float64) (int64, error) {
	if factor == 1 {
		if v, err := n.Int64(); err == nil {
			return v, nil
		}
	}
	f, err := n.Float64()
	if err != nil {
		return 0, fmt.Errorf("%s is not a number", n.String())
	}
	v := f * factor
	if math.IsNaN(v) || v >= math.MaxInt64 || v <= math.MinInt64 {
		return 0, fmt.Errorf("%s is out of range", n.String())
	}
	r := math.Round(v)
	if r != v {
		d.rounded++
	}
	return int64(r), nil
}

func (d *decoder) unit(i int) (typ, unit string, factor float64, err error) {
	u, ok := units[d.f.Profiles[i].Unit]
	if !ok {
		return "", "", 0, fmt.Errorf("speedscope: profiles[%d]: unit %q is not one of speedscope's", i, d.f.Profiles[i].Unit)
	}
	return u.typ, u.unit, u.factor, nil
}

// profile converts profile i of the file.
func (d *decoder) profile(i int) (*model.Profile, error) {
	sp := &d.f.Profiles[i]
	typ, unit, factor, err := d.unit(i)
	if err != nil {
		return nil, err
	}
	t := d.newTables()
	p := t.b.P
	p.SampleTypes = []model.ValueType{{Type: t.b.String(typ), Unit: t.b.String(unit)}}
	if sp.Name != "" {
		p.Comments = []int32{t.b.String(sp.Name)}
	}
	sums := map[int32]int{} // stack -> sample index
	add := func(stack int32, v int64) {
		if j, ok := sums[stack]; ok {
			p.Samples[j].Values()[0] += v
			return
		}
		sums[stack] = len(p.Samples)
		p.Samples = append(p.Samples, model.NewSample(stack, []int64{v}))
	}
	switch sp.Type {
	case "sampled":
		if sp.Samples.Len() != len(sp.Weights) {
			return nil, fmt.Errorf("speedscope: profiles[%d]: %d samples but %d weights", i, sp.Samples.Len(), len(sp.Weights))
		}
		for j := range sp.Samples.Len() {
			st, err := t.sampleStack(sp.Samples.At(j))
			if err != nil {
				return nil, fmt.Errorf("speedscope: profiles[%d].samples[%d]: %v", i, j, err)
			}
			v, err := d.value(sp.Weights[j], factor)
			if err != nil {
				return nil, fmt.Errorf("speedscope: profiles[%d].weights[%d]: %v", i, j, err)
			}
			add(st, v)
		}
	case "evented":
		if err := d.events(i, t, factor, add); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("speedscope: profiles[%d]: type %q is neither \"sampled\" nor \"evented\"", i, sp.Type)
	}
	if unit == "nanoseconds" {
		if span, err := d.span(sp, factor); err == nil {
			p.DurationNanos = span
		}
	}
	d.warnRounded(unit)
	return p, nil
}

// span is endValue - startValue in the target unit.
func (d *decoder) span(sp *profileJSON, factor float64) (int64, error) {
	a, err1 := sp.StartValue.Float64()
	b, err2 := sp.EndValue.Float64()
	if err1 != nil || err2 != nil || b < a || (b-a)*factor >= math.MaxInt64 {
		return 0, fmt.Errorf("no span")
	}
	return int64(math.Round((b - a) * factor)), nil
}

func (d *decoder) warnRounded(unit string) {
	if d.rounded > 0 && d.warn != nil {
		d.warn(fmt.Sprintf("speedscope: %d values are not whole %s: rounded", d.rounded, unit))
	}
	d.rounded = 0
}

// events turns an evented profile into samples as speedscope's own
// CallTreeProfileBuilder does: the time between two events is the stack
// open during it; a frame is closed only at the top of the stack; events
// go forward in time; every frame opened is closed.
func (d *decoder) events(i int, t *tables, factor float64, add func(int32, int64)) error {
	sp := &d.f.Profiles[i]
	var open []int
	// Time runs from startValue, as speedscope counts it: before the first
	// frame opens, no frame is open.
	last, err := sp.StartValue.Float64()
	if err != nil {
		return fmt.Errorf("speedscope: profiles[%d].startValue: %q is not a number", i, sp.StartValue.String())
	}
	for j, ev := range sp.Events {
		at, err := ev.At.Float64()
		if err != nil {
			return fmt.Errorf("speedscope: profiles[%d].events[%d].at: %s is not a number", i, j, ev.At.String())
		}
		if at < last {
			return fmt.Errorf("speedscope: profiles[%d].events[%d]: at %s is before the event before it or startValue (%v)", i, j, ev.At.String(), last)
		}
		if at > last {
			st, err := t.stackOf(open)
			if err != nil {
				return fmt.Errorf("speedscope: profiles[%d].events[%d]: %v", i, j, err)
			}
			v, err := d.value(json.Number(fmt.Sprint(at-last)), factor)
			if err != nil {
				return fmt.Errorf("speedscope: profiles[%d].events[%d]: %v", i, j, err)
			}
			add(st, v)
		}
		last = at
		switch ev.Type {
		case "O":
			if _, err := t.location(ev.Frame); err != nil {
				return fmt.Errorf("speedscope: profiles[%d].events[%d]: %v", i, j, err)
			}
			open = append(open, ev.Frame)
		case "C":
			if len(open) == 0 {
				return fmt.Errorf("speedscope: profiles[%d].events[%d]: closes frame %d when no frame is open", i, j, ev.Frame)
			}
			if top := open[len(open)-1]; top != ev.Frame {
				return fmt.Errorf("speedscope: profiles[%d].events[%d]: closes frame %d while frame %d is at the top", i, j, ev.Frame, top)
			}
			open = open[:len(open)-1]
		default:
			return fmt.Errorf("speedscope: profiles[%d].events[%d]: type %q is neither \"O\" nor \"C\"", i, j, ev.Type)
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("speedscope: profiles[%d]: %d frames still open after the last event", i, len(open))
	}
	return nil
}

// merged reads pprofx's own file: one profile, a sample type per profile,
// each stack one sample with a value per type.
func (d *decoder) merged(types [][2]string) (*model.Profile, error) {
	t := d.newTables()
	p := t.b.P
	for _, ty := range types {
		p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: t.b.String(ty[0]), Unit: t.b.String(ty[1])})
	}
	if a := d.f.ActiveProfileIndex; a != nil && *a >= 0 && *a < len(types) {
		p.DefaultSampleType = t.b.String(types[*a][0])
	}
	index := map[int32]int{}
	for i, sp := range d.f.Profiles {
		if sp.Samples.Len() != len(sp.Weights) {
			return nil, fmt.Errorf("speedscope: profiles[%d]: %d samples but %d weights", i, sp.Samples.Len(), len(sp.Weights))
		}
		for j := range sp.Samples.Len() {
			st, err := t.sampleStack(sp.Samples.At(j))
			if err != nil {
				return nil, fmt.Errorf("speedscope: profiles[%d].samples[%d]: %v", i, j, err)
			}
			v, err := d.value(sp.Weights[j], 1)
			if err != nil {
				return nil, fmt.Errorf("speedscope: profiles[%d].weights[%d]: %v", i, j, err)
			}
			k, ok := index[st]
			if !ok {
				k = len(p.Samples)
				index[st] = k
				p.Samples = append(p.Samples, model.NewSample(st, make([]int64, len(types))))
			}
			p.Samples[k].Values()[i] += v
		}
	}
	d.warnRounded("units")
	return p, nil
}
