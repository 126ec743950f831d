package jfr

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// event is one event that becomes a sample, as read from its chunk. The
// measure of kCPU and kWall events is their count times the chunk's
// sampling period, known when the whole chunk is read.
type event struct {
	kind    kind
	count   int64  // the count value (wall clock samples batch several)
	measure int64  // bytes, or nanoseconds of a duration
	stack   uint64 // jdk.types.StackTrace id; 0 for none
	thread  uint64 // java.lang.Thread id
	ticks   int64  // start time in the chunk's ticks
}

// ownEvent is an event pprofx reads itself, and where it is among the
// events jfr-parser reads: after the first `after` of them.
type ownEvent struct {
	event
	typ   uint64
	after int
}

type decoder struct {
	opts    Options
	info    Info
	b       *model.Builder
	rows    rows
	present [numKinds]bool
	period  [numKinds]int64 // smallest period seen, per kind
	locs    map[string]int32
	keyBuf  []byte
	fnBuf   []int32
	// Location attributes by frame type and bytecode indexes.
	attrs      map[string][]model.Attribute
	attrKeyBuf []byte
	funcs      map[[3]int32]int32
	warned     map[string]bool
	start      int64
	end        int64
}

func newDecoder(opts Options) *decoder {
	return &decoder{
		opts:   opts,
		info:   Info{Events: map[string]int{}},
		b:      model.NewBuilder(),
		locs:   map[string]int32{},
		attrs:  map[string][]model.Attribute{},
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

// ownEvents are the event types pprofx reads itself.
var ownEvents = map[string]kind{"jdk.NativeMethodSample": kWall}

// chunk decodes one chunk, whole, into d. On error nothing of the chunk is
// kept but table entries no sample refers to.
func (d *decoder) chunk(c []byte, h header) (err error) {
	m, err := readMetadata(c, int(h.metaOffset))
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	first := len(d.b.P.Samples)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("jfr-parser failed: %v", r)
		}
		if err != nil {
			d.dropChunk(first)
		}
	}()
	l := newLibrary(m)
	ps, err := readPools(m, l, c, int(h.cpOffset))
	if err != nil {
		return fmt.Errorf("constant pools: %w", err)
	}
	// The settings first, wherever they are: a sample is worth its
	// chunk's period. And how many events become samples.
	n := 0
	err = walkEvents(m, c, func(r *reader, cl *class, pos int) error {
		if cl.lib == lActiveSetting {
			_, _, err := libraryEvent(l, r, cl, pos, h)
			return err
		}
		if cl.role == roleOwn || cl.lib >= lExec && cl.lib <= lMalloc {
			n++
		}
		return nil
	})
	if err != nil {
		return err
	}
	periods, wallExec := d.periods(m, l.settings)
	d.beginChunk(n, periods, wallExec)
	// Room for the chunk's stacks, each with at most its frames.
	d.b.P.Stacks.Grow(len(ps.stacks), ps.frameCount)
	cc := newChunkCache(l, ps)
	// Each event is checked, then read: by jfr-parser's binding of its
	// type, or by pprofx.
	err = walkEvents(m, c, func(r *reader, cl *class, pos int) error {
		cl.events++
		switch {
		case cl.role == roleOwn:
			e, err := readOwnEvent(r, cl, ownEvents[cl.name])
			if err != nil {
				return fmt.Errorf("%s event at byte %d: %w", cl.name, pos, err)
			}
			d.add(cc, &e, h)
		case cl.lib != lActiveSetting:
			e, keep, err := libraryEvent(l, r, cl, pos, h)
			if err != nil {
				return err
			}
			if keep {
				d.add(cc, &e, h)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if l.frees > 0 {
		d.warn(fmt.Sprintf("jfr: %d profiler.Free events not kept: a free has no size and no stack of its allocation", l.frees))
	}
	d.settle(h)
	// Only a chunk read whole counts its events.
	for _, cl := range m.classes {
		if cl.events > 0 {
			d.info.Events[strings.Clone(cl.name)] += cl.events
		}
	}
	return nil
}

// libraryEvent checks the event of class cl that r holds, then reads it
// with jfr-parser; it returns the event if it becomes a sample. An event
// whose fields are all integers, booleans or references (cl.ops) has no
// count or length to check: jfr-parser reads it within the event's bytes,
// which are all it is given, and fails where they end.
func libraryEvent(l *library, r *reader, cl *class, pos int, h header) (event, bool, error) {
	start := r.pos
	if cl.ops == nil {
		if err := skipClass(r, cl, 0); err != nil {
			return event{}, false, fmt.Errorf("%s event at byte %d: %w", cl.name, pos, err)
		}
	}
	e, keep, err := l.event(cl, r.b[start:r.end], h)
	if err != nil {
		return e, false, fmt.Errorf("event at byte %d: jfr-parser: %v", pos, err)
	}
	return e, keep, nil
}

// walkEvents calls fn on every event of the chunk that pprofx or
// jfr-parser reads, with a reader bounded to the event, after its type.
func walkEvents(m *meta, c []byte, fn func(r *reader, cl *class, pos int) error) error {
	pos := chunkHeaderSize
	r := newReader(c, 0)
	for pos < len(c) {
		r.pos, r.end = pos, len(c)
		size, err := r.varlong()
		if err != nil {
			return fmt.Errorf("event at byte %d: %w", pos, err)
		}
		if size == 0 || size > uint64(len(c)-pos) {
			return fmt.Errorf("event at byte %d: size %d does not fit the %d bytes left in the chunk", pos, size, len(c)-pos)
		}
		r.end = pos + int(size)
		typ, err := r.varlong()
		if err != nil {
			return fmt.Errorf("event at byte %d: %w", pos, err)
		}
		if cl := m.class(typ); cl != nil && cl.role != roleNone {
			if err := fn(r, cl, pos); err != nil {
				return err
			}
		}
		pos += int(size)
	}
	return nil
}

// readOwnEvent reads a jdk.NativeMethodSample.
func readOwnEvent(r *reader, cl *class, k kind) (event, error) {
	e := event{kind: k, count: 1}
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
