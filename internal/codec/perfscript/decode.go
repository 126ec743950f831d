package perfscript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// rawFrame is a frame of the sample being read, its text copied into the
// decoder's arena (the scanner reuses its buffer).
type rawFrame struct {
	ip       uint64
	sym, dso span // in arena
	hasDSO   bool
	src      span
	srcLine  int64
	hasSrc   bool
}

type event struct {
	name      string
	hasPeriod bool
	samples   int
}

type decoder struct {
	opts   Options
	b      *model.Builder
	lineNo int

	// The sample being read.
	inSample  bool
	h         header
	comm      string
	eventName string
	frames    []rawFrame
	arena     []byte
	lastFrame bool // the previous line was a frame (a srcline may follow)

	events   []event
	eventIdx map[string]int
	mappings map[string]int32
	funcs    map[string]int32
	locs     map[string]int32
	keyBuf   []byte
	stack    []int32
	labels   []model.Label

	// Per sample, read back by finish.
	evOf    []int32
	periods []int64
	noPer   bool

	refTOD, refMono int64
	hasRef          bool
	minT, maxT      int64
	timed           int
	unixStamps      []uint64

	keys struct{ pid, tid, cpu, comm, ts, cpuUnit int32 }
}

func newDecoder(opts Options) *decoder {
	d := &decoder{opts: opts, b: model.NewBuilder(), eventIdx: map[string]int{},
		mappings: map[string]int32{}, funcs: map[string]int32{}, locs: map[string]int32{}}
	d.keys.pid = d.b.String(LabelPID)
	d.keys.tid = d.b.String(LabelTID)
	d.keys.cpu = d.b.String(LabelCPU)
	d.keys.comm = d.b.String(LabelThreadComm)
	d.keys.ts = d.b.String(LabelTimestamp)
	d.keys.cpuUnit = d.b.String("cpu")
	return d
}

func (d *decoder) line(ln []byte) error {
	ln = bytes.TrimRight(ln, "\r")
	if len(ln) == 0 || len(bytes.TrimSpace(ln)) == 0 {
		d.lastFrame = false
		return d.endSample()
	}
	switch ln[0] {
	case '#':
		if d.inSample {
			if err := d.endSample(); err != nil {
				return err
			}
		}
		d.comment(ln)
		return nil
	case '\t':
		// perf indents call chain lines with a tab.
		if f, ok := parseFrame(bytes.TrimLeft(ln, " \t")); ok {
			return d.addFrame(f)
		}
		return lineError("not a call chain frame (want \"ip symbol (dso)\")", ln)
	}
	var h header
	if parseHeader(ln, &h) {
		if err := d.endSample(); err != nil {
			return err
		}
		d.startSample(&h)
		if h.frame != nil {
			return d.addFrame(*h.frame)
		}
		return nil
	}
	t := bytes.TrimLeft(ln, " \t")
	if f, ok := parseFrame(t); ok && d.inSample && (f.hasDSO || len(f.sym) == 0) {
		// Old perf versions print frames without indentation.
		return d.addFrame(f)
	}
	if d.lastFrame && t[0] != ln[0] {
		if file, line, ok := parseSrcline(t); ok {
			f := &d.frames[len(d.frames)-1]
			f.src, f.srcLine, f.hasSrc = d.keep(file), line, file != nil
			d.lastFrame = false
			return nil
		}
	}
	if !d.inSample && (t[0] != ln[0]) {
		if _, ok := parseFrame(t); ok {
			return errors.New("a call chain frame outside a sample (no sample line before it, or a blank line between them)")
		}
	}
	return lineError("neither a sample line (command, thread id, time, event) nor a call chain frame", ln)
}

func (d *decoder) keep(b []byte) span {
	s := span{len(d.arena), len(d.arena) + len(b)}
	d.arena = append(d.arena, b...)
	return s
}

func (d *decoder) str(s span) []byte { return d.arena[s.from:s.to] }

func (d *decoder) addFrame(f frame) error {
	if !d.inSample {
		return errors.New("a call chain frame outside a sample (no sample line before it, or a blank line between them)")
	}
	d.frames = append(d.frames, rawFrame{ip: f.ip, sym: d.keep(f.sym), dso: d.keep(f.dso), hasDSO: f.hasDSO})
	d.lastFrame = true
	return nil
}

func (d *decoder) startSample(h *header) {
	d.inSample = true
	d.h = *h
	d.h.frame = nil
	// The header's bytes are the scanner's, which the next lines reuse.
	if string(h.comm) != d.comm {
		d.comm = string(h.comm)
	}
	if string(h.event) != d.eventName {
		d.eventName = string(h.event)
	}
	d.h.comm, d.h.event = nil, nil
	d.frames = d.frames[:0]
	d.arena = d.arena[:0]
	d.lastFrame = false
}

// comment reads the --header lines pprofx keeps: the events in their
// order, perf's version and command line (as pprof comments, as
// perf_data_converter writes them), and the reference time that ties
// perf's clock to the time of day.
func (d *decoder) comment(ln []byte) {
	s := strings.TrimSpace(strings.TrimLeft(string(ln), "#"))
	key, val, ok := strings.Cut(s, ":")
	if !ok {
		return
	}
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	switch key {
	case "event":
		if name, ok := strings.CutPrefix(val, "name = "); ok {
			name, _, _ = strings.Cut(name, ",")
			d.event(strings.TrimSpace(name))
		}
	case "perf version":
		d.b.P.Comments = append(d.b.P.Comments, d.b.String("perf-version:"+val))
	case "cmdline":
		d.b.P.Comments = append(d.b.P.Comments, d.b.String("perf-command:"+val))
	case "reference time":
		// "2026-11-27 03:42:17.474760 = 1795750937.474760 (TOD) = 548.992268634 (monotonic)"
		parts := strings.Split(val, " = ")
		if len(parts) != 3 {
			return
		}
		tod, okT := parseClock(parts[1], "(TOD)")
		mono, okM := parseClock(parts[2], "")
		if okT && okM {
			d.refTOD, d.refMono, d.hasRef = tod, mono, true
		}
	}
}

// parseClock reads "1795750937.474760 (TOD)" (suffix "(TOD)") or
// "548.992268634 (monotonic)" (any suffix) as nanoseconds.
func parseClock(s, suffix string) (int64, bool) {
	num, rest, _ := strings.Cut(strings.TrimSpace(s), " ")
	if suffix != "" && strings.TrimSpace(rest) != suffix {
		return 0, false
	}
	b := []byte(num + ":")
	if !isTime(b) {
		return 0, false
	}
	return parseTime(b)
}

func (d *decoder) event(name string) int {
	if i, ok := d.eventIdx[name]; ok {
		return i
	}
	d.events = append(d.events, event{name: name})
	d.eventIdx[name] = len(d.events) - 1
	return len(d.events) - 1
}

// endSample adds the sample being read, if any.
func (d *decoder) endSample() error {
	if !d.inSample {
		return nil
	}
	d.inSample = false
	h := &d.h
	name := d.eventName
	if !h.hasEvent {
		name = "event"
		if len(d.events) == 1 {
			name = d.events[0].name
		}
	}
	ei := d.event(name)
	ev := &d.events[ei]
	ev.samples++
	if h.hasPeriod {
		ev.hasPeriod = true
	}
	d.stack = d.stack[:0]
	java := strings.HasPrefix(d.comm, "java")
	for i := 0; i < len(d.frames); {
		j := d.group(i)
		li, err := d.location(d.frames[i:j], java)
		if err != nil {
			return err
		}
		d.stack = append(d.stack, li)
		i = j
	}
	d.labels = d.labels[:0]
	if h.hasPID {
		d.labels = append(d.labels, model.Label{Key: d.keys.pid, Num: h.pid})
	}
	if h.hasTID {
		d.labels = append(d.labels, model.Label{Key: d.keys.tid, Num: h.tid})
	}
	if d.comm != "" {
		d.labels = append(d.labels, model.Label{Key: d.keys.comm, Str: d.b.String(d.comm)})
	}
	if h.hasTime {
		d.labels = append(d.labels, model.Label{Key: d.keys.ts, Num: h.timeNs})
		if d.timed == 0 || h.timeNs < d.minT {
			d.minT = h.timeNs
		}
		if d.timed == 0 || h.timeNs > d.maxT {
			d.maxT = h.timeNs
		}
		d.timed++
	}
	if h.hasCPU {
		d.labels = append(d.labels, model.Label{Key: d.keys.cpu, Num: h.cpu, NumUnit: d.keys.cpuUnit})
	}
	p := d.b.P
	s := model.Sample{Stack: d.b.Stack(d.stack), LabelSet: d.b.LabelSet(d.labels), Link: model.NoLink}
	if d.hasRef && h.hasTime {
		d.unixStamps = append(d.unixStamps, uint64(d.refTOD+(h.timeNs-d.refMono)))
		s.Timestamps = d.unixStamps[len(d.unixStamps)-1:]
	}
	p.Samples = append(p.Samples, s)
	d.evOf = append(d.evOf, int32(ei))
	per := int64(0)
	if h.hasPeriod {
		per = h.period
	} else {
		d.noPer = true
	}
	d.periods = append(d.periods, per)
	return nil
}

// group returns the end of the location that starts at frame i: a run of
// "(inlined)" frames at one address, with the frame they were inlined
// into when perf prints it (same address, a real DSO).
func (d *decoder) group(i int) int {
	j := i
	for j < len(d.frames) && d.isInlined(j) && d.frames[j].ip == d.frames[i].ip {
		j++
	}
	if j == i {
		return i + 1
	}
	if j < len(d.frames) && d.frames[j].ip == d.frames[i].ip {
		j++
	}
	return j
}

func (d *decoder) isInlined(i int) bool {
	f := &d.frames[i]
	return f.hasDSO && string(d.str(f.dso)) == "inlined"
}

// location returns the location of a group of frames, adding it.
func (d *decoder) location(g []rawFrame, java bool) (int32, error) {
	k := d.keyBuf[:0]
	if java {
		k = append(k, 'J')
	}
	for _, f := range g {
		k = binary.LittleEndian.AppendUint64(k, f.ip)
		k = append(k, d.str(f.sym)...)
		k = append(k, 0)
		if f.hasDSO {
			k = append(k, '(')
			k = append(k, d.str(f.dso)...)
		}
		k = append(k, 0)
		if f.hasSrc {
			k = append(k, d.str(f.src)...)
			k = binary.AppendVarint(k, f.srcLine)
		}
		k = append(k, 1)
	}
	d.keyBuf = k
	if li, ok := d.locs[string(k)]; ok {
		return li, nil
	}
	p := d.b.P
	loc := model.Location{Address: g[0].ip, Mapping: model.NoMapping}
	for _, f := range g {
		if f.hasDSO && string(d.str(f.dso)) != "inlined" {
			loc.Mapping = d.mapping(string(d.str(f.dso)))
		}
	}
	for _, f := range g {
		sym := string(d.str(f.sym))
		if sym == "" {
			continue
		}
		dso := ""
		if f.hasDSO {
			dso = string(d.str(f.dso))
		}
		file := string(d.str(f.src))
		pieces := strings.Split(sym, "->")
		// perf-map-agent's "a->b->c": c inlined into b into a; the
		// model's lines are innermost first.
		for pi := len(pieces) - 1; pi >= 0; pi-- {
			name := frameName(pieces[pi], dso, java)
			system := pieces[pi]
			if pi > 0 && !strings.Contains(name, "_[i]") {
				// The annotation the folded codec uses for an inlined frame.
				system = name + "_[i]"
			}
			fi := d.function(name, system, file)
			ln := model.Line{Function: fi}
			if f.hasSrc && pi == len(pieces)-1 {
				ln.Line = f.srcLine
			}
			loc.Lines = append(loc.Lines, ln)
		}
	}
	if loc.Mapping != model.NoMapping {
		m := &p.Mappings[loc.Mapping]
		m.HasFunctions = m.HasFunctions || len(loc.Lines) > 0
		m.HasInlineFrames = m.HasInlineFrames || len(loc.Lines) > 1
		m.HasFilenames = m.HasFilenames || g[len(g)-1].hasSrc
		m.HasLineNumbers = m.HasLineNumbers || g[len(g)-1].hasSrc
	}
	if len(p.Locations) >= 1<<31-1 {
		return 0, errors.New("too many locations")
	}
	p.Locations = append(p.Locations, loc)
	li := int32(len(p.Locations) - 1)
	d.locs[string(k)] = li
	return li, nil
}

func (d *decoder) mapping(file string) int32 {
	if file == "[unknown]" || file == "" {
		return model.NoMapping
	}
	if mi, ok := d.mappings[file]; ok {
		return mi
	}
	p := d.b.P
	p.Mappings = append(p.Mappings, model.Mapping{File: d.b.String(file)})
	mi := int32(len(p.Mappings) - 1)
	d.mappings[file] = mi
	return mi
}

func (d *decoder) function(name, system, file string) int32 {
	k := name + "\x00" + system + "\x00" + file
	if fi, ok := d.funcs[k]; ok {
		return fi
	}
	p := d.b.P
	p.Functions = append(p.Functions, model.Function{Name: d.b.String(name), SystemName: d.b.String(system), Filename: d.b.String(file)})
	fi := int32(len(p.Functions) - 1)
	d.funcs[k] = fi
	return fi
}

// finish sets the sample types and every sample's values.
func (d *decoder) finish() (*model.Profile, error) {
	p := d.b.P
	if len(p.Samples) == 0 {
		return nil, errors.New("no samples (not perf script output?)")
	}
	col := make([][2]int, len(d.events)) // per event: its _sample and _event columns (-1: none)
	n := 0
	for i, e := range d.events {
		col[i] = [2]int{n, -1}
		p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: d.b.String(e.name + "_sample"), Unit: d.b.String("count")})
		n++
		if e.hasPeriod {
			col[i][1] = n
			p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: d.b.String(e.name + "_event"), Unit: d.b.String(periodUnit(e.name))})
			n++
		}
	}
	// The first event's period (or count), as stackcollapse-perf.pl sums it.
	first := d.evOf[0]
	def := col[first][0]
	if col[first][1] >= 0 {
		def = col[first][1]
	}
	p.DefaultSampleType = p.SampleTypes[def].Type
	if uint64(len(p.Samples))*uint64(n) > 1<<34 {
		return nil, fmt.Errorf("%d samples of %d values: too many", len(p.Samples), n)
	}
	vals := make([]int64, len(p.Samples)*n)
	missing := false
	for i := range p.Samples {
		v := vals[i*n : (i+1)*n : (i+1)*n]
		c := col[d.evOf[i]]
		v[c[0]] = 1
		if c[1] >= 0 {
			v[c[1]] = d.periods[i]
			if d.periods[i] == 0 {
				missing = true
			}
		}
		p.Samples[i].Values = v
	}
	if missing && d.opts.Warn != nil {
		d.opts.Warn("perf script: some samples of an event with periods print none; their period is 0")
	}
	if d.timed > 1 {
		p.DurationNanos = d.maxT - d.minT
	}
	if d.hasRef && d.timed > 0 {
		p.TimeNanos = d.refTOD + (d.minT - d.refMono)
	}
	return p, nil
}

// periodUnit is the unit of an event's period: nanoseconds for the
// software clocks (cpu-clock, task-clock), a count of events otherwise.
func periodUnit(event string) string {
	base, _, _ := strings.Cut(event, ":")
	switch base {
	case "cpu-clock", "task-clock":
		return "nanoseconds"
	}
	return "count"
}
