package jfr

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/grafana/jfr-parser/parser"
	"github.com/grafana/jfr-parser/parser/types"
	"github.com/grafana/jfr-parser/parser/types/def"

	"github.com/pprofx/pprofx/internal/model"
)

// event is one event that becomes a sample, as read from its chunk.
type event struct {
	kind    kind
	periodN bool   // the measure is the kind's sampling period times count
	count   int64  // the count value (wall clock samples batch several)
	measure int64  // bytes, or nanoseconds of a duration
	stack   uint64 // jdk.types.StackTrace id; 0 for none
	thread  uint64 // java.lang.Thread id
	ticks   int64  // start time in the chunk's ticks
}

// sample is a decoded sample before the profile's sample types are known.
type sample struct {
	kind     kind
	count    int64
	measure  int64
	stack    int32
	labelSet int32
	time     uint64
}

type decoder struct {
	opts    Options
	info    Info
	b       *model.Builder
	samples []sample
	present [numKinds]bool
	period  [numKinds]int64 // smallest period seen, per kind
	locs    map[string]int32
	keyBuf  []byte
	funcs   map[[3]int32]int32
	warned  map[string]bool
	start   int64
	end     int64
}

func newDecoder(opts Options) *decoder {
	return &decoder{
		opts:   opts,
		info:   Info{Events: map[string]int{}},
		b:      model.NewBuilder(),
		locs:   map[string]int32{},
		funcs:  map[[3]int32]int32{},
		warned: map[string]bool{},
	}
}

func (d *decoder) warn(msg string) {
	if d.opts.Warn != nil && !d.warned[msg] {
		d.warned[msg] = true
		d.opts.Warn(msg)
	}
}

// libraryEvents are the event types jfr-parser v0.18.0 binds, by name.
var libraryEvents = map[string]bool{
	"jdk.ExecutionSample": true, "profiler.WallClockSample": true,
	"jdk.ObjectAllocationInNewTLAB": true, "jdk.ObjectAllocationOutsideTLAB": true,
	"jdk.ObjectAllocationSample": true, "jdk.JavaMonitorEnter": true, "jdk.ThreadPark": true,
	"profiler.LiveObject": true, "jdk.ActiveSetting": true, "profiler.Malloc": true, "profiler.Free": true,
}

// ownEvents are the event types pprofx reads itself.
var ownEvents = map[string]kind{"jdk.NativeMethodSample": kWall}

// chunk decodes one chunk, whole, into d. On error nothing of the chunk is
// kept but table entries no sample refers to.
func (d *decoder) chunk(c []byte, h header) (err error) {
	m, err := readMetadata(c, int(h.metaOffset))
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	ps, err := readPools(m, c, int(h.cpOffset))
	if err != nil {
		return fmt.Errorf("constant pools: %w", err)
	}
	own, order, err := scanEvents(m, c)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("jfr-parser failed: %v", r)
		}
	}()
	p := parser.NewParser(c, parser.Options{})
	var evs []event
	settings := map[def.TypeID][]types.ActiveSetting{}
	frees := 0
	oi := 0
	counts := map[uint64]int{} // events by type id
	for _, o := range order {
		if o.own {
			evs = append(evs, own[oi])
			oi++
			continue
		}
		typ, err := p.ParseEvent()
		if err == io.EOF {
			return fmt.Errorf("jfr-parser found no event where pprofx found one of type %d at byte %d", o.typ, o.pos)
		}
		if err != nil {
			return fmt.Errorf("event at byte %d: jfr-parser: %v", o.pos, err)
		}
		if uint64(typ) != o.typ {
			return fmt.Errorf("jfr-parser read an event of type %d where pprofx found one of type %d at byte %d", typ, o.typ, o.pos)
		}
		tm := &p.TypeMap
		switch typ {
		case tm.T_ACTIVE_SETTING:
			s := p.ActiveSetting
			settings[def.TypeID(s.Id)] = append(settings[def.TypeID(s.Id)], s)
		case tm.T_EXECUTION_SAMPLE:
			e := p.ExecutionSample
			evs = append(evs, event{kind: kCPU, periodN: true, count: 1, stack: uint64(e.StackTrace), thread: uint64(e.SampledThread), ticks: int64(e.StartTime)})
		case tm.T_WALL_CLOCK_SAMPLE:
			e := p.WallClockSample
			evs = append(evs, event{kind: kWall, periodN: true, count: int64(e.Samples), stack: uint64(e.StackTrace), thread: uint64(e.SampledThread), ticks: int64(e.StartTime)})
		case tm.T_ALLOC_SAMPLE:
			e := p.ObjectAllocationSample
			evs = append(evs, event{kind: kAllocSample, count: 1, measure: int64(e.Weight), stack: uint64(e.StackTrace), thread: uint64(e.EventThread), ticks: int64(e.StartTime)})
		case tm.T_ALLOC_IN_NEW_TLAB:
			e := p.ObjectAllocationInNewTLAB
			evs = append(evs, event{kind: kAllocNewTLAB, count: 1, measure: int64(e.TlabSize), stack: uint64(e.StackTrace), thread: uint64(e.EventThread), ticks: int64(e.StartTime)})
		case tm.T_ALLOC_OUTSIDE_TLAB:
			e := p.ObjectAllocationOutsideTLAB
			evs = append(evs, event{kind: kAllocOutsideTLAB, count: 1, measure: int64(e.AllocationSize), stack: uint64(e.StackTrace), thread: uint64(e.EventThread), ticks: int64(e.StartTime)})
		case tm.T_MONITOR_ENTER:
			e := p.JavaMonitorEnter
			evs = append(evs, event{kind: kLock, count: 1, measure: ticksToNanos(int64(e.Duration), h.ticksPerSecond), stack: uint64(e.StackTrace), thread: uint64(e.EventThread), ticks: int64(e.StartTime)})
		case tm.T_THREAD_PARK:
			e := p.ThreadPark
			evs = append(evs, event{kind: kLock, count: 1, measure: ticksToNanos(int64(e.Duration), h.ticksPerSecond), stack: uint64(e.StackTrace), thread: uint64(e.EventThread), ticks: int64(e.StartTime)})
		case tm.T_LIVE_OBJECT:
			e := p.LiveObject
			evs = append(evs, event{kind: kLive, count: 1, measure: int64(e.AllocationSize), stack: uint64(e.StackTrace), thread: uint64(e.EventThread), ticks: int64(e.StartTime)})
		case tm.T_MALLOC:
			e := p.Malloc
			evs = append(evs, event{kind: kMalloc, count: 1, measure: int64(e.Size), stack: uint64(e.StackTrace), thread: uint64(e.EventThread), ticks: int64(e.StartTime)})
		case tm.T_FREE:
			frees++
		}
		counts[o.typ]++
	}
	for _, o := range order {
		if o.own {
			counts[o.typ]++
		}
	}
	if frees > 0 {
		d.warn(fmt.Sprintf("jfr: %d profiler.Free events not kept: a free has no size and no stack of its allocation", frees))
	}
	periods, wallExec := d.periods(m, p, settings, h)
	if wallExec {
		for i := range evs {
			if evs[i].kind == kCPU {
				evs[i].kind = kWall
			}
		}
	}
	if err := d.addEvents(p, ps, h, evs, periods); err != nil {
		return err
	}
	// Only a chunk read whole counts its events.
	for typ, n := range counts {
		d.info.Events[m.class(typ).name] += n
	}
	return nil
}

// order is one event of a chunk that becomes a sample or a setting, in
// file order: read by jfr-parser, or by pprofx (own).
type order struct {
	own bool
	typ uint64
	pos int
}

// scanEvents walks the chunk's events: it checks those jfr-parser will
// read and reads those pprofx reads itself.
func scanEvents(m *meta, c []byte) ([]event, []order, error) {
	var own []event
	var ord []order
	pos := chunkHeaderSize
	r := &reader{}
	for pos < len(c) {
		r.b, r.pos = c, pos
		size, err := r.varlong()
		if err != nil {
			return nil, nil, fmt.Errorf("event at byte %d: %w", pos, err)
		}
		if size == 0 || size > uint64(len(c)-pos) {
			return nil, nil, fmt.Errorf("event at byte %d: size %d does not fit the %d bytes left in the chunk", pos, size, len(c)-pos)
		}
		r.b = c[:pos+int(size)]
		typ, err := r.varlong()
		if err != nil {
			return nil, nil, fmt.Errorf("event at byte %d: %w", pos, err)
		}
		if cl := m.class(typ); cl != nil && cl.role != roleNone {
			ord = append(ord, order{own: cl.role == roleOwn, typ: typ, pos: pos})
			if cl.role == roleOwn {
				e, err := ownEvent(r, cl, ownEvents[cl.name])
				if err != nil {
					return nil, nil, fmt.Errorf("%s event at byte %d: %w", cl.name, pos, err)
				}
				own = append(own, e)
			} else if err := skipClass(r, cl, 0); err != nil {
				return nil, nil, fmt.Errorf("%s event at byte %d: %w", cl.name, pos, err)
			}
		}
		pos += int(size)
	}
	return own, ord, nil
}

// ownEvent reads a jdk.NativeMethodSample.
func ownEvent(r *reader, cl *class, k kind) (event, error) {
	e := event{kind: k, periodN: true, count: 1}
	for i := range cl.fields {
		f := &cl.fields[i]
		v, err := num(r, f, 1)
		if err != nil {
			return e, err
		}
		switch f.name {
		case "startTime":
			e.ticks = int64(v)
		case "stackTrace":
			e.stack = v
		case "sampledThread":
			e.thread = v
		}
	}
	return e, nil
}

// ticksToNanos converts a duration in ticks to nanoseconds.
func ticksToNanos(t, perSecond int64) int64 {
	neg := t < 0
	if neg {
		t = -t
	}
	hi, lo := bits.Mul64(uint64(t), 1e9)
	if hi >= uint64(perSecond) {
		return 0 // would overflow; a broken duration
	}
	q, _ := bits.Div64(hi, lo, uint64(perSecond))
	n := int64(q)
	if q > 1<<63-1 {
		n = 1<<63 - 1
	}
	if neg {
		n = -n
	}
	return n
}

// finish builds the profile from the samples of every chunk read.
func (d *decoder) finish() *model.Profile {
	pr := d.b.P
	var col [numKinds]int
	for k := kind(0); k < numKinds; k++ {
		if !d.present[k] {
			col[k] = -1
			continue
		}
		col[k] = len(pr.SampleTypes)
		for _, st := range sampleTypes[k] {
			pr.SampleTypes = append(pr.SampleTypes, model.ValueType{Type: d.b.String(st[0]), Unit: d.b.String(st[1])})
		}
	}
	width := len(pr.SampleTypes)
	values := make([]int64, width*len(d.samples))
	pr.Samples = make([]model.Sample, len(d.samples))
	for i, s := range d.samples {
		v := values[i*width : (i+1)*width : (i+1)*width]
		v[col[s.kind]] = s.count
		v[col[s.kind]+1] = s.measure
		pr.Samples[i] = model.Sample{Stack: s.stack, Values: v, LabelSet: s.labelSet, Link: model.NoLink, Timestamps: []uint64{s.time}}
	}
	for _, k := range []kind{kCPU, kWall} {
		if d.present[k] {
			pr.PeriodType = model.ValueType{Type: d.b.String(sampleTypes[k][1][0]), Unit: d.b.String(sampleTypes[k][1][1])}
			pr.Period = d.period[k]
			pr.DefaultSampleType = d.b.String(sampleTypes[k][1][0])
			break
		}
	}
	pr.TimeNanos = d.start
	if d.end > d.start {
		pr.DurationNanos = d.end - d.start
	}
	return pr
}
