package jfr

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// Location attribute keys.
const (
	// AttrFrameType is the semantic conventions' profile.frame.type.
	AttrFrameType = "profile.frame.type"
	// AttrJFRFrameType holds JFR's own frame type, the description of the
	// jdk.types.FrameType of jdk.types.StackFrame's field "type"
	// ("Interpreted", "JIT compiled", "Inlined", "Native", "C++",
	// "Kernel", "C1 compiled"), of the location's last (outermost) line.
	AttrJFRFrameType = "jdk.types.StackFrame.type"
	// AttrBytecodeIndex holds each line's jdk.types.StackFrame
	// bytecodeIndex, innermost first, as an array of integers.
	AttrBytecodeIndex = "jdk.types.StackFrame.bytecodeIndex"
)

// semconvFrameType maps a JFR frame type to profile.frame.type.
var semconvFrameType = map[string]string{
	"Interpreted": "jvm", "JIT compiled": "jvm", "Inlined": "jvm", "C1 compiled": "jvm",
	"Native": "native", "C++": "native", "Kernel": "kernel",
}

// javaNamed reports whether a frame's class is a Java class, whose
// internal name (java/lang/Object) is written with dots: Java frames, and
// the JDK's "Native" frames of Java native methods; not async-profiler's
// native, C++ and kernel frames, whose class is a library name and whose
// descriptor is its placeholder "()L;" or "(Lk;)L;".
func javaNamed(frameType, descriptor string) bool {
	switch frameType {
	case "C++", "Kernel":
		return false
	case "Native":
		return descriptor != "()L;" && descriptor != "(Lk;)L;"
	}
	return true
}

// chunkCache maps a chunk's ids to what they became in the model; it
// lives as long as the chunk's reading.
type chunkCache struct {
	l  *library
	ps *pools
	// Model stacks by stack trace id: in a slice by id, as the stack +1,
	// when the pool's ids are below twice its count (the JDK numbers a
	// chunk's traces from 1), else in the map.
	denseStacks []int32
	stacks      map[uint64]int32
	threads     map[uint64]int32
	funcs       map[funcKey]int32
	locs        map[physFrame]int32
	packed      map[uint64]int32 // the locations of frames that pack
	// Java class names, with dots, by java.lang.Class id.
	javaClasses map[uint64]string
	// The stack and thread of the event added last, and what they became.
	hasLast               bool
	lastStack, lastThread uint64
	lastSt, lastLs        int32
	locBuf                []int32
}

// funcKey is a method id below 2^63 and whether its class is named as
// Java's (the lowest bit). The JDK's method ids are a class's id shifted
// by 16 bits or'ed with the method's number, async-profiler's count up;
// a larger id is not cached.
type funcKey uint64

// physFrame is a physical frame with nothing inlined into it.
type physFrame struct {
	method, typ uint64
	line, bci   int64
}

// newChunkCache returns a cache with room for the stack traces and
// methods of the chunk's pools (the JDK and async-profiler write those
// the chunk's events use).
func newChunkCache(l *library, ps *pools) *chunkCache {
	cc := &chunkCache{l: l, ps: ps, threads: map[uint64]int32{},
		funcs: make(map[funcKey]int32, len(ps.methods)), locs: map[physFrame]int32{}, packed: make(map[uint64]int32, len(ps.methods)),
		javaClasses: make(map[uint64]string, min(len(ps.methods), len(l.classes.Class)))}
	if n := len(ps.stacks); ps.maxStackID < uint64(2*n+2) {
		cc.denseStacks = make([]int32, ps.maxStackID+1)
		cc.stacks = map[uint64]int32{}
	} else {
		cc.stacks = make(map[uint64]int32, n)
	}
	return cc
}

// add turns an event into a sample; its measure is settled with the
// chunk's.
func (d *decoder) add(cc *chunkCache, e *event, h header) {
	if !cc.hasLast || e.stack != cc.lastStack {
		cc.lastStack, cc.lastSt = e.stack, cc.stack(d, e.stack)
	}
	if !cc.hasLast || e.thread != cc.lastThread {
		ls, ok := cc.threads[e.thread]
		if !ok {
			ls = d.thread(cc.l, e.thread)
			cc.threads[e.thread] = ls
		}
		cc.lastThread, cc.lastLs = e.thread, ls
	}
	cc.hasLast = true
	d.addSample(e, cc.lastSt, cc.lastLs, ticksToTime(e.ticks, h))
}

// stack returns the model stack of a stack trace id, made if new.
func (cc *chunkCache) stack(d *decoder, id uint64) int32 {
	if id < uint64(len(cc.denseStacks)) {
		if st := cc.denseStacks[id]; st > 0 {
			return st - 1
		}
		st := d.stack(cc, id)
		cc.denseStacks[id] = st + 1
		return st
	}
	st, ok := cc.stacks[id]
	if !ok {
		st = d.stack(cc, id)
		cc.stacks[id] = st
	}
	return st
}

// ticksToTime converts a time in the chunk's ticks to nanoseconds since
// the Unix epoch.
func ticksToTime(t int64, h header) uint64 {
	if h.ticksPerSecond == 1e9 {
		return uint64(h.startNanos + t - h.startTicks)
	}
	return uint64(h.startNanos + ticksToNanos(t-h.startTicks, h.ticksPerSecond))
}

// thread returns the label set of a thread: its Java name, else its OS
// name, as thread; its Java id, else its OS id, as thread_id.
func (d *decoder) thread(l *library, ref uint64) int32 {
	t, ok := l.thread(ref)
	if !ok {
		return 0
	}
	name, id := t.JavaName, t.JavaThreadId
	if name == "" {
		name = t.OsName
	}
	if id == 0 {
		id = t.OsThreadId
	}
	var ls []model.Label
	if name != "" {
		ls = append(ls, model.Label{Key: d.b.String("thread"), Str: d.b.StringCopy(name)})
	}
	if id != 0 {
		ls = append(ls, model.Label{Key: d.b.String("thread_id"), Num: int64(id)})
	}
	return d.b.LabelSet(ls)
}

// stack returns the model stack of a JFR stack trace: a location per
// physical frame, inlined frames as the inline lines of the frame they
// were inlined into.
func (d *decoder) stack(cc *chunkCache, id uint64) int32 {
	ps := cc.ps
	frames, truncated := ps.trace(id)
	if truncated {
		d.warn("jfr: some stack traces are truncated (the recording's stackdepth setting); they are kept as recorded")
	}
	locs := cc.locBuf[:0]
	for i := 0; i < len(frames); {
		j := i
		for j < len(frames)-1 && ps.isInlined(frames[j].typ) {
			j++
		}
		locs = append(locs, d.location(cc, frames[i:j+1]))
		i = j + 1
	}
	cc.locBuf = locs
	return d.b.Stack(locs)
}

// location returns the location of a physical frame: frames[len-1], with
// the frames inlined into it before it, innermost first.
func (d *decoder) location(cc *chunkCache, frames []frame) int32 {
	var fk physFrame
	packed, fits := uint64(0), false
	if len(frames) == 1 {
		f := frames[0]
		if packed, fits = f.pack(); fits {
			if l, ok := cc.packed[packed]; ok {
				return l
			}
		} else {
			fk = physFrame{method: f.method, typ: f.typ, line: f.line, bci: f.bci}
			if l, ok := cc.locs[fk]; ok {
				return l
			}
		}
	}
	last := cc.ps.frameTypes[frames[len(frames)-1].typ]
	// The key of a location across chunks: its frame type, and each
	// line's function, line and bytecode index.
	key := append(d.keyBuf[:0], last...)
	key = append(key, 0)
	fns := d.fnBuf[:0]
	for _, f := range frames {
		fn := d.function(cc, f.method, cc.ps.frameTypes[f.typ])
		fns = append(fns, fn)
		key = binary.AppendVarint(key, int64(fn))
		key = binary.AppendVarint(key, f.line)
		key = binary.AppendVarint(key, f.bci)
	}
	d.keyBuf, d.fnBuf = key, fns
	l, ok := d.locs[string(key)]
	if !ok {
		pr := d.b.P
		loc := model.Location{Mapping: model.NoMapping, FirstLine: uint32(len(pr.Lines)), NumLines: uint32(len(frames))}
		for k, f := range frames {
			pr.Lines = append(pr.Lines, model.Line{Function: fns[k], Line: max(f.line, 0)})
		}
		l = int32(len(pr.Locations))
		pr.Locations = append(pr.Locations, loc)
		pr.SetLocationAttrs(int(l), d.locationAttrs(last, frames))
		d.locs[string(key)] = l
	}
	switch {
	case fits:
		cc.packed[packed] = l
	case len(frames) == 1:
		cc.locs[fk] = l
	}
	return l
}

// pack returns a frame in one integer, if its fields fit: a method id
// below 2^34 (the JDK's are a class's id shifted by 16 bits, or'ed with
// the method's number), a frame type id below 16, a line from -1 to 16382
// and a bytecode index from -1 to 4094.
func (f frame) pack() (uint64, bool) {
	line, bci := uint64(f.line+1), uint64(f.bci+1)
	if f.method >= 1<<34 || f.typ >= 16 || line >= 1<<14 || bci >= 1<<12 {
		return 0, false
	}
	return f.method<<30 | f.typ<<26 | line<<12 | bci, true
}

// locationAttrs returns the attributes of a location of this frame type
// and these frames: its profile.frame.type, its JFR frame type and its
// lines' bytecode indexes. Locations with the same share them (the model
// says they may).
func (d *decoder) locationAttrs(frameType string, frames []frame) []model.Attribute {
	key := append(d.attrKeyBuf[:0], frameType...)
	key = append(key, 0)
	for _, f := range frames {
		key = binary.AppendVarint(key, f.bci)
	}
	d.attrKeyBuf = key
	if attrs, ok := d.attrs[string(key)]; ok {
		return attrs
	}
	bcis := make([]model.Value, len(frames))
	for k, f := range frames {
		bcis[k] = model.Value{Kind: model.KindInt, Int: f.bci}
	}
	attrs := make([]model.Attribute, 0, 3)
	if t := semconvFrameType[frameType]; t != "" {
		attrs = append(attrs, model.Attribute{Key: AttrFrameType, Value: model.Value{Kind: model.KindString, Str: t}})
	}
	if frameType != "" {
		attrs = append(attrs, model.Attribute{Key: AttrJFRFrameType, Value: model.Value{Kind: model.KindString, Str: strings.Clone(frameType)}})
	}
	attrs = append(attrs, model.Attribute{Key: AttrBytecodeIndex, Value: model.Value{Kind: model.KindArray, Array: bcis}})
	attrs = attrs[:len(attrs):len(attrs)]
	d.attrs[string(key)] = attrs
	return attrs
}

// function returns the function of a JFR method: package.Class.method
// (the JVM's / as .) for Java frames, library.symbol for native ones as
// async-profiler records them, the descriptor as its system name.
func (d *decoder) function(cc *chunkCache, id uint64, frameType string) int32 {
	md, ok := cc.ps.methods[id]
	if !ok {
		return d.functionNamed(d.b.String("[unknown method "+strconv.FormatUint(id, 10)+"]"), "")
	}
	l := cc.l
	sys := l.symbol(md.descriptor)
	fk := funcKey(id << 1)
	java := javaNamed(frameType, sys)
	if java {
		fk |= 1
	}
	cached := id < 1<<63
	if f, ok := cc.funcs[fk]; ok && cached {
		return f
	}
	cls := cc.className(md.class, java)
	mname := l.symbol(md.name)
	var f int32
	switch {
	case cls == "":
		f = d.functionNamed(d.b.StringCopy(mname), sys)
	case mname == "":
		f = d.functionNamed(d.b.StringCopy(cls), sys)
	default:
		// A new string: no copy needed.
		f = d.functionNamed(d.b.String(cls+"."+mname), sys)
	}
	if cached {
		cc.funcs[fk] = f
	}
	return f
}

// className returns the name of a java.lang.Class id, as a Java class's
// when java is set.
func (cc *chunkCache) className(id uint64, java bool) string {
	if !java {
		return cc.l.className(id)
	}
	if s, ok := cc.javaClasses[id]; ok {
		return s
	}
	s := javaClassName(cc.l.className(id))
	cc.javaClasses[id] = s
	return s
}

// functionNamed returns the function of this name (a string index) and
// system name.
func (d *decoder) functionNamed(name int32, sys string) int32 {
	// jfr-parser's strings alias the chunk's bytes, which the next chunk
	// reuses: the model keeps copies.
	key := [3]int32{name, d.b.StringCopy(sys), 0}
	if f, ok := d.funcs[key]; ok {
		return f
	}
	pr := d.b.P
	f := int32(len(pr.Functions))
	pr.Functions = append(pr.Functions, model.Function{Name: key[0], SystemName: key[1]})
	d.funcs[key] = f
	return f
}

// javaClassName turns the JVM's internal class name (java/lang/String)
// into its binary name (java.lang.String). A hidden class's name keeps
// what follows its "+0x" address verbatim (Cpu$$Lambda$90+0x0000.../1234):
// the JVM writes that part, and its "/", as it is.
func javaClassName(s string) string {
	head, tail := s, ""
	if i := strings.Index(s, "+0x"); i >= 0 {
		head, tail = s[:i], s[i:]
	}
	return strings.ReplaceAll(head, "/", ".") + tail
}
