package perfscript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pprofx/pprofx/internal/model"
)

// pframe is a distinct call chain line, parsed once: a text repeats the
// same frame lines over and over, and each is looked up by its bytes.
type pframe struct {
	ip       uint64
	sym, dso string
	hasDSO   bool
	inlined  bool // dso is "inlined"
	src      string
	srcLine  int64
	hasSrc   bool
	loc      [2]int32 // its location alone (not java, java), +1; 0: not made yet
	line     string   // the frame line it was read from, white space trimmed
	next     int32    // the frame line read after it last time, +1; 0: none
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
	commStr   int32 // comm's string index
	eventName string
	frames    []int32 // the sample's frames, indices into table
	lastFrame bool    // the previous line was a frame (a srcline may follow)
	prevLine  int32   // the sample's previous frame line (table index), -1: none
	startNext int32   // the first frame line of the previous sample, +1

	table      []pframe
	byLine     map[string]int32 // frame line (white space trimmed) -> table index
	bySrc      map[string]int32 // table index and srcline -> table index
	evs        []event
	eventIdx   map[string]int
	lastEv     int // the event of the previous call to event, -1: none
	mappings   map[string]int32
	funcs      map[string]int32
	locs       map[string]int32
	keyBuf     []byte
	stack      []int32
	labels     []model.Label
	comms      map[string]commStr // a command's bytes -> its string, made once
	eventNames map[string]string  // an event name's bytes -> its string

	// Label sets, interned here rather than through the builder: every
	// timed sample has its own timestamp_ns, so a sample later in time
	// than all before it has a new label set, known without a lookup.
	sameT   []int32            // the label sets whose time is maxT
	lsIdx   map[labelKey]int32 // every label set, once samples come out of time order
	lsNext  int32              // with lsIdx: the set after the previous sample's
	labSlab []model.Label      // the label sets' labels, allocated in chunks
	tsSlab  []uint64           // the samples' timestamps, allocated in chunks

	// The samples' events and periods, read back by finish: a run of
	// samples of one event and period is one entry (a text of one event
	// at a fixed frequency is one run), and takes one row of values.
	runs []run

	refTOD, refMono int64
	hasRef          bool
	minT, maxT      int64
	timed           int

	keys struct{ pid, tid, cpu, comm, ts, cpuUnit int32 }
}

// commStr is a command and its string index.
type commStr struct {
	s   string
	str int32
}

func newDecoder(opts Options) *decoder {
	d := &decoder{opts: opts, b: model.NewBuilder(), eventIdx: map[string]int{},
		mappings: map[string]int32{}, comms: map[string]commStr{}, eventNames: map[string]string{}, byLine: map[string]int32{}, bySrc: map[string]int32{}, funcs: map[string]int32{}, locs: map[string]int32{}}
	d.prevLine, d.lastEv = -1, -1
	d.keys.pid = d.b.String(LabelPID)
	d.keys.tid = d.b.String(LabelTID)
	d.keys.cpu = d.b.String(LabelCPU)
	d.keys.comm = d.b.String(LabelThreadComm)
	d.keys.ts = d.b.String(LabelTimestamp)
	d.keys.cpuUnit = d.b.String("cpu")
	return d
}

func (d *decoder) line(ln []byte) error {
	if n := len(ln); n > 0 && ln[n-1] == '\r' {
		ln = bytes.TrimRight(ln, "\r")
	}
	if len(ln) > 0 && ln[0] == '\t' {
		// perf indents call chain lines with a tab: most lines.
		if t := trimBlanks(ln); len(t) > 0 && t[0] < utf8.RuneSelf && !asciiSpace(t[0]) {
			return d.frameLine(t)
		}
	}
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
		return d.frameLine(bytes.Trim(ln, " \t"))
	}
	var h header
	if parseHeader(ln, &h) {
		if err := d.endSample(); err != nil {
			return err
		}
		d.startSample(&h)
		if h.frame != nil {
			return d.addFrame(d.addFrameTable(*h.frame))
		}
		return nil
	}
	t := bytes.TrimLeft(ln, " \t")
	if f, ok := parseFrame(t); ok && d.inSample && (f.hasDSO || len(f.sym) == 0) {
		// Old perf versions print frames without indentation.
		return d.frameLine(bytes.TrimRight(t, " \t"))
	}
	if d.lastFrame && t[0] != ln[0] {
		if file, line, ok := parseSrcline(t); ok {
			if file != nil {
				last := &d.frames[len(d.frames)-1]
				*last = d.withSrc(*last, file, line)
			}
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

// trimBlanks is bytes.Trim(b, " \t").
func trimBlanks(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

// asciiSpace is an ASCII byte bytes.TrimSpace removes.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// withSrc is frame fi with a source line.
func (d *decoder) withSrc(fi int32, file []byte, line int64) int32 {
	k := make([]byte, 0, 16+len(file))
	k = binary.AppendVarint(k, int64(fi))
	k = binary.AppendVarint(k, line)
	k = append(k, file...)
	if i, ok := d.bySrc[string(k)]; ok {
		return i
	}
	f := d.table[fi]
	f.src, f.srcLine, f.hasSrc, f.loc, f.line, f.next = string(file), line, true, [2]int32{}, "", 0
	d.table = append(d.table, f)
	i := int32(len(d.table) - 1)
	d.bySrc[string(k)] = i
	return i
}

// frameLine adds the frame line ln (white space trimmed) to the sample.
func (d *decoder) frameLine(ln []byte) error {
	// The line that followed this one's predecessor last time is the
	// likeliest: samples repeat call chains.
	next := &d.startNext
	if d.prevLine >= 0 {
		next = &d.table[d.prevLine].next
	}
	if fi := *next - 1; fi >= 0 && d.table[fi].line == string(ln) {
		d.prevLine = fi
		return d.addFrame(fi)
	}
	fi, ok := d.byLine[string(ln)]
	if !ok {
		f, ok := parseFrame(ln)
		if !ok {
			return lineError("not a call chain frame (want \"ip symbol (dso)\")", ln)
		}
		if !d.inSample {
			return errOutside
		}
		fi = d.addFrameTable(f)
		key := string(ln)
		d.table[fi].line = key
		d.byLine[key] = fi
	}
	*next = fi + 1
	d.prevLine = fi
	return d.addFrame(fi)
}

var errOutside = errors.New("a call chain frame outside a sample (no sample line before it, or a blank line between them)")

func (d *decoder) addFrameTable(f frame) int32 {
	d.table = append(d.table, pframe{ip: f.ip, sym: string(f.sym), dso: string(f.dso), hasDSO: f.hasDSO,
		inlined: f.hasDSO && string(f.dso) == "inlined"})
	return int32(len(d.table) - 1)
}

func (d *decoder) addFrame(fi int32) error {
	if !d.inSample {
		return errOutside
	}
	d.frames = append(d.frames, fi)
	d.lastFrame = true
	return nil
}

func (d *decoder) startSample(h *header) {
	d.inSample = true
	d.h = *h
	d.h.frame = nil
	// The header's bytes are the scanner's, which the next lines reuse.
	if string(h.comm) != d.comm || d.commStr == 0 && len(h.comm) > 0 {
		c, ok := d.comms[string(h.comm)]
		if !ok {
			c.s = string(h.comm)
			c.str = d.b.String(c.s)
			d.comms[c.s] = c
		}
		d.comm, d.commStr = c.s, c.str
	}
	if string(h.event) != d.eventName {
		e, ok := d.eventNames[string(h.event)]
		if !ok {
			e = string(h.event)
			d.eventNames[e] = e
		}
		d.eventName = e
	}
	d.h.comm, d.h.event = nil, nil
	d.frames = d.frames[:0]
	d.lastFrame = false
	d.prevLine = -1
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
	if d.lastEv >= 0 && d.evs[d.lastEv].name == name {
		return d.lastEv
	}
	i, ok := d.eventIdx[name]
	if !ok {
		d.evs = append(d.evs, event{name: name})
		i = len(d.evs) - 1
		d.eventIdx[name] = i
	}
	d.lastEv = i
	return i
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
		if len(d.evs) == 1 {
			name = d.evs[0].name
		}
	}
	ei := d.event(name)
	ev := &d.evs[ei]
	ev.samples++
	if h.hasPeriod {
		ev.hasPeriod = true
	}
	d.stack = d.stack[:0]
	java := strings.HasPrefix(d.comm, "java")
	for i := 0; i < len(d.frames); {
		j := d.group(i)
		li, err := d.groupLocation(d.frames[i:j], java)
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
		d.labels = append(d.labels, model.Label{Key: d.keys.comm, Str: d.commStr})
	}
	if h.hasTime {
		d.labels = append(d.labels, model.Label{Key: d.keys.ts, Num: h.timeNs})
	}
	if h.hasCPU {
		d.labels = append(d.labels, model.Label{Key: d.keys.cpu, Num: h.cpu, NumUnit: d.keys.cpuUnit})
	}
	p := d.b.P
	s := model.Sample{Stack: d.b.Stack(d.stack), LabelSet: d.labelSet(h), Link: model.NoLink}
	if h.hasTime {
		if d.timed == 0 || h.timeNs < d.minT {
			d.minT = h.timeNs
		}
		if d.timed == 0 || h.timeNs > d.maxT {
			d.maxT = h.timeNs
		}
		d.timed++
	}
	if d.hasRef && h.hasTime {
		if len(d.tsSlab) == cap(d.tsSlab) {
			d.tsSlab = make([]uint64, 0, slabLen)
		}
		d.tsSlab = append(d.tsSlab, uint64(d.refTOD+(h.timeNs-d.refMono)))
		s.SetTimestamps(d.tsSlab[len(d.tsSlab)-1 : len(d.tsSlab) : len(d.tsSlab)])
	}
	p.Samples = grow(p.Samples)
	p.Samples = append(p.Samples, s)
	per := int64(0)
	if h.hasPeriod {
		per = h.period
	}
	if n := len(d.runs); n == 0 || d.runs[n-1].ev != int32(ei) || d.runs[n-1].period != per {
		if uint64(len(p.Samples)) > math.MaxUint32 {
			return fmt.Errorf("more than %d samples", uint32(math.MaxUint32))
		}
		d.runs = grow(d.runs)
		d.runs = append(d.runs, run{start: uint32(len(p.Samples) - 1), ev: int32(ei), period: per})
	}
	return nil
}

// run is a run of samples, from start to the next run's start, of one
// event and period (0: none printed). 16 bytes: where each sample's
// period differs (perf's frequency mode), a run a sample.
type run struct {
	start  uint32
	ev     int32
	period int64
}

// slabLen is the length of the chunks labels and timestamps are
// allocated in.
const slabLen = 4096

// grow doubles a full slice's capacity: append's growth for large slices
// copies the samples of a large text many times over.
func grow[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	// Made at its size: slices.Grow(s, len(s)) would take append's
	// growth to the needed length, 2.4 times the capacity, not 2.
	g := make([]T, len(s), max(2*len(s), 1024))
	copy(g, s)
	return g
}

// labelKey is what tells a sample's label set from another's: the label
// set's labels are those of endSample, made from these fields.
type labelKey struct {
	pid, tid, ts, cpu int64
	comm              int32
	has               int32 // 1 pid, 2 tid, 4 comm, 8 time, 16 cpu
}

func (d *decoder) keyOf(h *header) labelKey {
	k := labelKey{pid: h.pid, tid: h.tid, ts: h.timeNs, cpu: h.cpu, comm: d.commStr}
	for i, b := range [...]bool{h.hasPID, h.hasTID, d.comm != "", h.hasTime, h.hasCPU} {
		if b {
			k.has |= 1 << i
		}
	}
	// Fields a label set does not hold do not tell sets apart.
	if !h.hasPID {
		k.pid = 0
	}
	if !h.hasTID {
		k.tid = 0
	}
	if d.comm == "" {
		k.comm = 0
	}
	if !h.hasTime {
		k.ts = 0
	}
	if !h.hasCPU {
		k.cpu = 0
	}
	return k
}

// labelSet returns the index of the label set of d.labels (the sample of
// header h), adding it if needed, as model.Builder.LabelSet would: equal
// sets share one index, new sets are appended in the order they come.
func (d *decoder) labelSet(h *header) int32 {
	if len(d.labels) == 0 {
		return 0
	}
	p := d.b.P
	switch {
	case d.lsIdx != nil:
	case h.hasTime && (d.timed == 0 || h.timeNs > d.maxT):
		// Later than every set so far: a new set.
		i := d.addLabelSet()
		d.sameT = append(d.sameT[:0], i)
		return i
	case h.hasTime && h.timeNs == d.maxT:
		for _, i := range d.sameT {
			if slices.Equal(p.LabelSets[i].Labels(), d.labels) {
				return i
			}
		}
		i := d.addLabelSet()
		d.sameT = append(d.sameT, i)
		return i
	default:
		// Out of time order, or no time: index every set from now on.
		d.lsIdx = make(map[labelKey]int32, len(p.LabelSets))
		for i := 1; i < len(p.LabelSets); i++ {
			d.lsIdx[d.keyOfLabels(p.LabelSets[i].Labels())] = int32(i)
		}
	}
	// A text that goes back in time often replays sets in their order:
	// the set after the previous sample's is tried first.
	if i := d.lsNext; i > 0 && int(i) < len(p.LabelSets) && slices.Equal(p.LabelSets[i].Labels(), d.labels) {
		d.lsNext++
		return i
	}
	k := d.keyOf(h)
	i, ok := d.lsIdx[k]
	if !ok {
		i = d.addLabelSet()
		d.lsIdx[k] = i
	}
	d.lsNext = i + 1
	return i
}

// keyOfLabels is keyOf for a label set made by endSample.
func (d *decoder) keyOfLabels(ls []model.Label) labelKey {
	var k labelKey
	for _, l := range ls {
		switch l.Key {
		case d.keys.pid:
			k.pid, k.has = l.Num, k.has|1
		case d.keys.tid:
			k.tid, k.has = l.Num, k.has|2
		case d.keys.comm:
			k.comm, k.has = l.Str, k.has|4
		case d.keys.ts:
			k.ts, k.has = l.Num, k.has|8
		case d.keys.cpu:
			k.cpu, k.has = l.Num, k.has|16
		}
	}
	return k
}

// addLabelSet appends a label set of d.labels.
func (d *decoder) addLabelSet() int32 {
	p := d.b.P
	if len(d.labSlab)+len(d.labels) > cap(d.labSlab) {
		d.labSlab = make([]model.Label, 0, max(slabLen, len(d.labels)))
	}
	n := len(d.labSlab)
	d.labSlab = append(d.labSlab, d.labels...)
	p.LabelSets = grow(p.LabelSets)
	p.LabelSets = append(p.LabelSets, model.NewLabelSet(d.labSlab[n:len(d.labSlab):len(d.labSlab)], nil))
	return int32(len(p.LabelSets) - 1)
}

// group returns the end of the location that starts at frame i: a run of
// "(inlined)" frames at one address, with the frame they were inlined
// into when perf prints it (same address, a real DSO).
func (d *decoder) group(i int) int {
	ip := d.table[d.frames[i]].ip
	j := i
	for j < len(d.frames) && d.table[d.frames[j]].inlined && d.table[d.frames[j]].ip == ip {
		j++
	}
	if j == i {
		return i + 1
	}
	if j < len(d.frames) && d.table[d.frames[j]].ip == ip {
		j++
	}
	return j
}

// groupLocation is location, remembered per frame for a frame alone.
func (d *decoder) groupLocation(g []int32, java bool) (int32, error) {
	j := 0
	if java {
		j = 1
	}
	if len(g) == 1 {
		if li := d.table[g[0]].loc[j]; li > 0 {
			return li - 1, nil
		}
	}
	li, err := d.location(g, java)
	if err == nil && len(g) == 1 {
		d.table[g[0]].loc[j] = li + 1
	}
	return li, err
}

// location returns the location of a group of frames, adding it.
func (d *decoder) location(g []int32, java bool) (int32, error) {
	k := d.keyBuf[:0]
	if java {
		k = append(k, 'J')
	}
	for _, fi := range g {
		k = binary.AppendUvarint(k, uint64(fi))
	}
	d.keyBuf = k
	if li, ok := d.locs[string(k)]; ok {
		return li, nil
	}
	p := d.b.P
	loc := model.Location{Address: d.table[g[0]].ip, Mapping: model.NoMapping}
	for _, fi := range g {
		if f := &d.table[fi]; f.hasDSO && !f.inlined {
			loc.Mapping = d.mapping(f.dso)
		}
	}
	last := &d.table[g[len(g)-1]]
	first := len(p.Lines)
	for _, fi := range g {
		f := &d.table[fi]
		sym := f.sym
		if sym == "" {
			continue
		}
		dso := f.dso
		file := f.src
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
			p.Lines = append(p.Lines, ln)
		}
	}
	if n := len(p.Lines) - first; n > 0 {
		loc.FirstLine, loc.NumLines = uint32(first), uint32(n)
	}
	if loc.Mapping != model.NoMapping {
		m := &p.Mappings[loc.Mapping]
		m.HasFunctions = m.HasFunctions || loc.NumLines > 0
		m.HasInlineFrames = m.HasInlineFrames || loc.NumLines > 1
		m.HasFilenames = m.HasFilenames || last.hasSrc
		m.HasLineNumbers = m.HasLineNumbers || last.hasSrc
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
	col := make([][2]int, len(d.evs)) // per event: its _sample and _event columns (-1: none)
	n := 0
	for i, e := range d.evs {
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
	first := d.runs[0].ev
	def := col[first][0]
	if col[first][1] >= 0 {
		def = col[first][1]
	}
	p.DefaultSampleType = p.SampleTypes[def].Type
	if uint64(len(d.runs))*uint64(n) > 1<<34 {
		return nil, fmt.Errorf("%d samples of %d values: too many", len(p.Samples), n)
	}
	// One row of values a run, shared by its samples.
	vals := make([]int64, len(d.runs)*n)
	missing := false
	for r, rn := range d.runs {
		v := vals[r*n : (r+1)*n : (r+1)*n]
		c := col[rn.ev]
		v[c[0]] = 1
		if c[1] >= 0 {
			v[c[1]] = rn.period
			if rn.period == 0 {
				missing = true
			}
		}
		end := len(p.Samples)
		if r+1 < len(d.runs) {
			end = int(d.runs[r+1].start)
		}
		for i := int(rn.start); i < end; i++ {
			p.Samples[i].SetValues(v)
		}
	}
	d.runs = nil
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
