package jfr

import (
	"fmt"

	"github.com/grafana/jfr-parser/parser/types"
	"github.com/grafana/jfr-parser/parser/types/def"
	"golang.org/x/text/encoding/charmap"
)

// This file hands jfr-parser v0.18.0 the events and constants it reads:
// its generated bindings (github.com/grafana/jfr-parser/parser/types),
// given the type map pprofx's own metadata pass builds. The library's
// driver, parser.Parser, would read each chunk's metadata a second time
// into a map per element (most of its time and memory on these
// recordings) and every stack trace into frames pprofx reads itself; the
// bindings decode the same values from the same bytes. Every value is
// checked by pprofx (scan.go) before the library reads it.

// libKind names the jfr-parser binding an event type is read with.
type libKind uint8

const (
	lNone libKind = iota
	lExec
	lWall
	lAllocNewTLAB
	lAllocOutsideTLAB
	lAllocSample
	lMonitorEnter
	lThreadPark
	lLive
	lMalloc
	lFree
	lActiveSetting
	numLib
)

// libraryEvents are the event types jfr-parser v0.18.0 binds, by name.
var libraryEvents = map[string]libKind{
	"jdk.ExecutionSample": lExec, "profiler.WallClockSample": lWall,
	"jdk.ObjectAllocationInNewTLAB": lAllocNewTLAB, "jdk.ObjectAllocationOutsideTLAB": lAllocOutsideTLAB,
	"jdk.ObjectAllocationSample": lAllocSample, "jdk.JavaMonitorEnter": lMonitorEnter, "jdk.ThreadPark": lThreadPark,
	"profiler.LiveObject": lLive, "profiler.Malloc": lMalloc, "profiler.Free": lFree, "jdk.ActiveSetting": lActiveSetting,
}

// typeSlot returns the field of jfr-parser's type map that holds the id
// of the type of this name, or nil.
func typeSlot(tm *def.TypeMap, name string) *def.TypeID {
	switch name {
	case "java.lang.String":
		return &tm.T_STRING
	case "int":
		return &tm.T_INT
	case "long":
		return &tm.T_LONG
	case "short":
		return &tm.T_SHORT
	case "float":
		return &tm.T_FLOAT
	case "boolean":
		return &tm.T_BOOLEAN
	case "java.lang.Class":
		return &tm.T_CLASS
	case "java.lang.Thread":
		return &tm.T_THREAD
	case "jdk.types.FrameType":
		return &tm.T_FRAME_TYPE
	case "jdk.types.ThreadState":
		return &tm.T_THREAD_STATE
	case "jdk.types.StackTrace":
		return &tm.T_STACK_TRACE
	case "jdk.types.Method":
		return &tm.T_METHOD
	case "jdk.types.Package":
		return &tm.T_PACKAGE
	case "jdk.types.Symbol":
		return &tm.T_SYMBOL
	case "profiler.types.LogLevel":
		return &tm.T_LOG_LEVEL
	case "jdk.types.StackFrame":
		return &tm.T_STACK_FRAME
	case "jdk.types.ClassLoader":
		return &tm.T_CLASS_LOADER
	case "jdk.ExecutionSample":
		return &tm.T_EXECUTION_SAMPLE
	case "profiler.WallClockSample":
		return &tm.T_WALL_CLOCK_SAMPLE
	case "jdk.ObjectAllocationInNewTLAB":
		return &tm.T_ALLOC_IN_NEW_TLAB
	case "jdk.ObjectAllocationOutsideTLAB":
		return &tm.T_ALLOC_OUTSIDE_TLAB
	case "jdk.ObjectAllocationSample":
		return &tm.T_ALLOC_SAMPLE
	case "profiler.LiveObject":
		return &tm.T_LIVE_OBJECT
	case "jdk.JavaMonitorEnter":
		return &tm.T_MONITOR_ENTER
	case "jdk.ThreadPark":
		return &tm.T_THREAD_PARK
	case "jdk.ActiveSetting":
		return &tm.T_ACTIVE_SETTING
	case "profiler.Malloc":
		return &tm.T_MALLOC
	case "profiler.Free":
		return &tm.T_FREE
	}
	return nil
}

// newTypeMap returns a type map with no type known.
func newTypeMap() def.TypeMap {
	tm := def.TypeMap{IDMap: map[def.TypeID]*def.Class{}}
	for _, n := range []string{"java.lang.String", "int", "long", "short", "float", "boolean",
		"java.lang.Class", "java.lang.Thread", "jdk.types.FrameType", "jdk.types.ThreadState",
		"jdk.types.StackTrace", "jdk.types.Method", "jdk.types.Package", "jdk.types.Symbol",
		"profiler.types.LogLevel", "jdk.types.StackFrame", "jdk.types.ClassLoader",
		"jdk.ExecutionSample", "profiler.WallClockSample", "jdk.ObjectAllocationInNewTLAB",
		"jdk.ObjectAllocationOutsideTLAB", "jdk.ObjectAllocationSample", "profiler.LiveObject",
		"jdk.JavaMonitorEnter", "jdk.ThreadPark", "jdk.ActiveSetting", "profiler.Malloc", "profiler.Free"} {
		*typeSlot(&tm, n) = -1
	}
	return tm
}

// library is jfr-parser's reading of one chunk: the constants pprofx
// takes from it (threads, classes, symbols) and the event read last.
type library struct {
	m       *meta
	threads types.ThreadList
	classes types.ClassList
	symbols types.SymbolList

	bThread *types.BindThread
	bClass  *types.BindClass
	bSymbol *types.BindSymbol

	exec        types.ExecutionSample
	wall        types.WallClockSample
	newTLAB     types.ObjectAllocationInNewTLAB
	outsideTLAB types.ObjectAllocationOutsideTLAB
	allocSample types.ObjectAllocationSample
	monitor     types.JavaMonitorEnter
	park        types.ThreadPark
	live        types.LiveObject
	malloc      types.Malloc
	setting     types.ActiveSetting

	bExec        *types.BindExecutionSample
	bWall        *types.BindWallClockSample
	bNewTLAB     *types.BindObjectAllocationInNewTLAB
	bOutsideTLAB *types.BindObjectAllocationOutsideTLAB
	bAllocSample *types.BindObjectAllocationSample
	bMonitor     *types.BindJavaMonitorEnter
	bPark        *types.BindThreadPark
	bLive        *types.BindLiveObject
	bMalloc      *types.BindMalloc
	bSetting     *types.BindActiveSetting

	settings map[def.TypeID][]types.ActiveSetting
	frees    int
}

func newLibrary(m *meta) *library {
	l := &library{m: m, settings: map[def.TypeID][]types.ActiveSetting{}}
	m.tm.ISO8859_1Decoder = charmap.ISO8859_1.NewDecoder()
	l.threads.Reset()
	l.classes.Reset()
	l.symbols.Reset()
	return l
}

// defClass returns class c as jfr-parser defines it, entered in the type
// map with the classes of its fields that are values, not references.
func (l *library) defClass(c *class) *def.Class {
	if c.def != nil {
		return c.def
	}
	dc := &def.Class{Name: c.name, ID: def.TypeID(c.id), Fields: make([]def.Field, len(c.fields))}
	c.def = dc
	l.m.tm.IDMap[dc.ID] = dc
	for i, f := range c.fields {
		dc.Fields[i] = def.Field{Name: f.name, Type: def.TypeID(f.typ), ConstantPool: f.cp, Array: f.array}
		if !f.cp && f.cls != nil {
			l.defClass(f.cls)
		}
	}
	return dc
}

// pool reads a pool of threads, classes or symbols with jfr-parser: b
// holds its count, size, and constants, all checked. It says whether c is
// such a pool.
func (l *library) pool(c *class, b []byte, size int) (bool, error) {
	tm := &l.m.tm
	var n int
	var err error
	switch {
	case def.TypeID(c.id) == tm.T_THREAD:
		if l.bThread == nil {
			l.bThread = types.NewBindThread(l.defClass(c), tm)
		}
		n, err = l.threads.Parse(b, l.bThread, tm)
	case def.TypeID(c.id) == tm.T_CLASS:
		if l.bClass == nil {
			l.bClass = types.NewBindClass(l.defClass(c), tm)
		}
		if len(l.classes.IDMap) == 0 {
			l.classes.IDMap = make(map[types.ClassRef]uint32, size)
		}
		n, err = l.classes.Parse(b, l.bClass, tm)
	case def.TypeID(c.id) == tm.T_SYMBOL:
		if l.bSymbol == nil {
			l.bSymbol = types.NewBindSymbol(l.defClass(c), tm)
		}
		if len(l.symbols.IDMap) == 0 {
			l.symbols.IDMap = make(map[types.SymbolRef]uint32, size)
		}
		n, err = l.symbols.Parse(b, l.bSymbol, tm)
	default:
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("jfr-parser: %v", err)
	}
	if n != len(b) {
		return true, fmt.Errorf("jfr-parser read %d bytes of the %s pool where pprofx read %d", n, c.name, len(b))
	}
	return true, nil
}

// event reads with jfr-parser the event of class c whose fields (checked)
// are b, and returns it if it becomes a sample.
func (l *library) event(c *class, b []byte, h header) (e event, keep bool, err error) {
	tm := &l.m.tm
	switch c.lib {
	case lExec:
		if l.bExec == nil {
			l.bExec = types.NewBindExecutionSample(l.defClass(c), tm)
		}
		x := &l.exec
		_, err = x.Parse(b, l.bExec, tm)
		e = event{kind: kCPU, count: 1, stack: uint64(x.StackTrace), thread: uint64(x.SampledThread), ticks: int64(x.StartTime)}
	case lWall:
		if l.bWall == nil {
			l.bWall = types.NewBindWallClockSample(l.defClass(c), tm)
		}
		x := &l.wall
		_, err = x.Parse(b, l.bWall, tm)
		e = event{kind: kWall, count: int64(x.Samples), stack: uint64(x.StackTrace), thread: uint64(x.SampledThread), ticks: int64(x.StartTime)}
	case lAllocSample:
		if l.bAllocSample == nil {
			l.bAllocSample = types.NewBindObjectAllocationSample(l.defClass(c), tm)
		}
		x := &l.allocSample
		_, err = x.Parse(b, l.bAllocSample, tm)
		e = event{kind: kAllocSample, count: 1, measure: int64(x.Weight), stack: uint64(x.StackTrace), thread: uint64(x.EventThread), ticks: int64(x.StartTime)}
	case lAllocNewTLAB:
		if l.bNewTLAB == nil {
			l.bNewTLAB = types.NewBindObjectAllocationInNewTLAB(l.defClass(c), tm)
		}
		x := &l.newTLAB
		_, err = x.Parse(b, l.bNewTLAB, tm)
		e = event{kind: kAllocNewTLAB, count: 1, measure: int64(x.TlabSize), stack: uint64(x.StackTrace), thread: uint64(x.EventThread), ticks: int64(x.StartTime)}
	case lAllocOutsideTLAB:
		if l.bOutsideTLAB == nil {
			l.bOutsideTLAB = types.NewBindObjectAllocationOutsideTLAB(l.defClass(c), tm)
		}
		x := &l.outsideTLAB
		_, err = x.Parse(b, l.bOutsideTLAB, tm)
		e = event{kind: kAllocOutsideTLAB, count: 1, measure: int64(x.AllocationSize), stack: uint64(x.StackTrace), thread: uint64(x.EventThread), ticks: int64(x.StartTime)}
	case lMonitorEnter:
		if l.bMonitor == nil {
			l.bMonitor = types.NewBindJavaMonitorEnter(l.defClass(c), tm)
		}
		x := &l.monitor
		_, err = x.Parse(b, l.bMonitor, tm)
		e = event{kind: kLock, count: 1, measure: ticksToNanos(int64(x.Duration), h.ticksPerSecond), stack: uint64(x.StackTrace), thread: uint64(x.EventThread), ticks: int64(x.StartTime)}
	case lThreadPark:
		if l.bPark == nil {
			l.bPark = types.NewBindThreadPark(l.defClass(c), tm)
		}
		x := &l.park
		_, err = x.Parse(b, l.bPark, tm)
		e = event{kind: kLock, count: 1, measure: ticksToNanos(int64(x.Duration), h.ticksPerSecond), stack: uint64(x.StackTrace), thread: uint64(x.EventThread), ticks: int64(x.StartTime)}
	case lLive:
		if l.bLive == nil {
			l.bLive = types.NewBindLiveObject(l.defClass(c), tm)
		}
		x := &l.live
		_, err = x.Parse(b, l.bLive, tm)
		e = event{kind: kLive, count: 1, measure: int64(x.AllocationSize), stack: uint64(x.StackTrace), thread: uint64(x.EventThread), ticks: int64(x.StartTime)}
	case lMalloc:
		if l.bMalloc == nil {
			l.bMalloc = types.NewBindMalloc(l.defClass(c), tm)
		}
		x := &l.malloc
		_, err = x.Parse(b, l.bMalloc, tm)
		e = event{kind: kMalloc, count: 1, measure: int64(x.Size), stack: uint64(x.StackTrace), thread: uint64(x.EventThread), ticks: int64(x.StartTime)}
	case lActiveSetting:
		if l.bSetting == nil {
			l.bSetting = types.NewBindActiveSetting(l.defClass(c), tm)
		}
		x := &l.setting
		// The settings periods are read from (period.go); the others are
		// many, and not kept.
		if _, err = x.Parse(b, l.bSetting, tm); err == nil && (x.Name == "period" || x.Name == "interval" || x.Name == "event") {
			l.settings[def.TypeID(x.Id)] = append(l.settings[def.TypeID(x.Id)], *x)
		}
		return e, false, err
	case lFree:
		// A free has no size and no stack of its allocation: counted, not
		// kept.
		l.frees++
		return e, false, nil
	default:
		return e, false, nil
	}
	return e, err == nil, err
}

// thread returns the thread of a java.lang.Thread id, if the chunk has it.
func (l *library) thread(ref uint64) (types.Thread, bool) {
	i, ok := l.threads.IDMap[types.ThreadRef(ref)]
	if !ok || int(i) >= len(l.threads.Thread) {
		return types.Thread{}, false
	}
	return l.threads.Thread[i], true
}

// className returns the name of a java.lang.Class id, as the JVM writes it.
func (l *library) className(ref uint64) string {
	i, ok := l.classes.IDMap[types.ClassRef(ref)]
	if !ok || int(i) >= len(l.classes.Class) {
		return ""
	}
	return l.symbol(uint64(l.classes.Class[i].Name))
}

// symbol returns the string of a jdk.types.Symbol id.
func (l *library) symbol(ref uint64) string {
	i, ok := l.symbols.IDMap[types.SymbolRef(ref)]
	if !ok || int(i) >= len(l.symbols.Symbol) {
		return ""
	}
	return l.symbols.Symbol[i].String
}
