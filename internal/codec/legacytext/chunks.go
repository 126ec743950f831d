package legacytext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
)

// A large text of one record a line (gperftools' heap, growth,
// fragmentation and contention text; Go's heap, mutex, block, goroutine
// and threadcreate debug=1) is read a run of records at a time: google/pprof's
// reading holds about 750 bytes a record, 40 times a short heap line, and
// a text of 69 MB took 3 GiB read whole. Each run is read as a text of its
// own, the header line, the run's records and the memory map that ends the
// text, by google/pprof and enrich as a whole text is (decodeText), and
// added to the profile read so far: its locations found by address,
// mapping and lines, its stacks and label sets interned, its samples
// appended in order. What the whole reading shares must come out the same
// from every run (the header's types and period, the mappings), or the
// text is read whole: google/pprof widens a mapping to take an address
// just below it, which only the run holding that address would do.
//
// A record is a line that is neither blank nor a comment; the comments
// after it (Go's frames, "#\t0x…") stay in its run.

// chunkBytes is about the size of the runs of records read at a time;
// a run is up to perRead times longer when the header and tail, which
// every run reads again, are long (a memory map of thousands of lines):
// at least perRead times them, but never more than perRead times
// chunkBytes, what its reading holds at once.
var (
	chunkBytes = 256 << 10
	perRead    = 4
)

// perRecord is the profile's share of a record, counted before a large
// text is read in runs: a sample of 40 bytes and a share of its values,
// stack and label set (texts made of the fixtures' records hold 56 and
// 72 bytes a record, the crafted one 56, by model.Profile.MemSize). What
// a record's distinct addresses add is not known before they are read:
// each run is checked against what the limit leaves then.
const perRecord = 72

// errDisagree tells Decode that the runs' readings differ in what a whole
// reading shares: the text is read whole.
var errDisagree = errors.New("legacy text: runs read differently")

// layout is a text cut into runs of records.
type layout struct {
	head    []byte // the header lines
	tail    []byte // from the line that ends the records on (a memory map); or nothing
	cuts    []int  // where the runs start in the text, then where the last ends
	lines   []int  // the line number of each run's first line
	tailAt  int    // the line number of the tail's first line
	records int
}

// splitRuns cuts a text into runs of about size bytes of records, or
// perRead times its header and tail if more (perRead times size at most);
// false when the text is not one of the kinds read in runs, or is one
// run.
func splitRuns(data []byte, size int) (layout, bool) {
	var l layout
	start, k := headOf(data)
	if start < 0 {
		return l, false
	}
	l.head = data[:start]
	// The tail first, then the runs.
	last, n := len(data), bytes.Count(l.head, []byte("\n"))+1
	for off := start; off < len(data); n++ {
		next := lineEnd(data, off)
		line := string(data[off:next])
		switch {
		case k.end(line):
			last, l.tailAt = off, n
			next = len(data)
		case isSpaceOrComment(line):
		case k.record != nil && !k.record(line):
			return l, false
		default:
			l.records++
		}
		off = next
	}
	l.tail = data[last:]
	size = max(size, min(perRead*(len(l.head)+len(l.tail)), perRead*size))
	n = bytes.Count(l.head, []byte("\n")) + 1
	l.cuts, l.lines = []int{start}, []int{n}
	for off := start; off < last; n++ {
		next := lineEnd(data, off)
		if off-l.cuts[len(l.cuts)-1] >= size {
			if line := string(data[off:next]); !isSpaceOrComment(line) && (k.cut == nil || k.cut(line)) {
				l.cuts = append(l.cuts, off)
				l.lines = append(l.lines, n)
			}
		}
		off = next
	}
	l.cuts = append(l.cuts, last)
	return l, len(l.cuts) > 2
}

// kind tells the lines of a text's records as google/pprof's parser of
// the kind does.
type kind struct {
	end    func(line string) bool // the line that ends the records
	record func(line string) bool // a record the parser takes as its kind; nil: any
	cut    func(line string) bool // a record a run may start with; nil: any
}

// headOf finds where the records of a text google/pprof reads a record a
// line start (after its header lines), and the kind of text:
//
//   - heap (gperftools heap, growth, fragmentation; Go heap debug=1):
//     the first line; the records end at a memory map's sentinel line
//     that is not a comment;
//   - contention (gperftools contentionz; Go mutex and block debug=1):
//     the first line, then "key = value" lines of the keys the parser
//     takes (the Java text has others); the records end at a "---" line.
//     A record the contention parser does not take has the text read by
//     others (Java's), and a run starting with a line holding "=" would
//     take it for a header line: such texts are read whole, such lines
//     start no run;
//   - counts (Go goroutine and threadcreate debug=1): comment lines, then
//     "NAME profile: total N"; the records end at a "---" line. A text
//     with label comments is read whole: its labels are taken only when
//     every one of them reads.
//
// start is -1 for any other text.
func headOf(data []byte) (start int, k kind) {
	first := bytes.IndexByte(data, '\n')
	if first < 0 {
		return -1, k
	}
	line := string(data[:first])
	switch {
	case strings.Contains(line, "heap profile:"):
		k.end = func(l string) bool { return !isSpaceOrComment(l) && isMemoryMapSentinel(l) }
		return first + 1, k
	case strings.HasPrefix(line, "--- contentionz "), strings.HasPrefix(line, "--- mutex:"), strings.HasPrefix(line, "--- contention:"):
		off := first + 1
		for off < len(data) {
			next := lineEnd(data, off)
			l := strings.TrimSpace(string(data[off:next]))
			if !isSpaceOrComment(l) {
				if strings.HasPrefix(l, "---") {
					return -1, k
				}
				key, v, ok := strings.Cut(l, "=")
				if !ok {
					break
				}
				if !contentionKey(strings.TrimSpace(key), strings.TrimSpace(v)) {
					return -1, k
				}
			}
			off = next
		}
		k.end = func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "---") }
		k.record = contentionSampleRE.MatchString
		k.cut = func(l string) bool { return !strings.Contains(l, "=") }
		return off, k
	}
	off := 0
	for off < len(data) {
		next := lineEnd(data, off)
		l := strings.TrimRight(string(data[off:next]), "\r\n")
		if !isSpaceOrComment(l) {
			if !countStartRE.MatchString(l) || next == len(data) || bytes.Contains(data, []byte("# labels: ")) {
				return -1, k
			}
			k.end = func(l string) bool { return !isSpaceOrComment(l) && strings.HasPrefix(l, "---") }
			return next, k
		}
		off = next
	}
	return -1, k
}

// lineEnd returns the offset after the line of data that starts at off.
func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(data)
}

// The first line of a Go count profile, and a contention record, as
// google/pprof's parsers match them.
var (
	countStartRE       = regexp.MustCompile(`\A(\S+) profile: total \d+\z`)
	contentionSampleRE = regexp.MustCompile(`(\d+) *(\d+) @([ x0-9a-f]*)`)
)

// contentionKey reports whether google/pprof's contention parser takes
// this header line.
func contentionKey(k, v string) bool {
	switch k {
	case "cycles/second", "sampling period", "ms since reset":
		_, err := strconv.ParseInt(v, 0, 64)
		return err == nil
	case "discarded samples":
		return true
	}
	return false
}

// decodeRuns reads the runs of l, each as a whole text, and adds them up.
func decodeRuns(data []byte, l layout, warn func(string)) (*model.Profile, error) {
	// What google/pprof takes for the largest run, and what the
	// profile takes: every record a sample.
	var run int
	for k := 0; k+1 < len(l.cuts); k++ {
		run = max(run, l.cuts[k+1]-l.cuts[k])
	}
	run += len(l.head) + len(l.tail)
	reading := runReading(l, run)
	if err := model.CheckAvailable("legacy text", reading+perRecord*int64(l.records), int64(len(data)), fmt.Sprintf("%d records, read %d KiB at a time", l.records, run>>10)); err != nil {
		return nil, err
	}
	// A Go frame comment names the frames of its address wherever the
	// address is, in the whole text.
	frames := map[uint64][]goFrame{}
	if bytes.Contains(data, []byte("\n#\t0x")) {
		frames = goFrames(data)
	}
	var a *appender
	var text []byte
	for k := 0; k+1 < len(l.cuts); k++ {
		if k > 0 {
			// The first run made the array of every sample; what the
			// profile took beyond it is in what is left.
			rest := (perRecord - int64(unsafe.Sizeof(model.Sample{}))) * int64(max(l.records-a.records(), 0))
			if err := model.CheckAvailableNow("legacy text", reading+rest, fmt.Sprintf("the rest of %d records", l.records)); err != nil {
				return nil, err
			}
		}
		text = append(append(append(text[:0], l.head...), data[l.cuts[k]:l.cuts[k+1]]...), l.tail...)
		p, err := decodeText(text, frames, warn)
		if perr, ok := err.(parseError); ok {
			return nil, l.locate(k, text, perr.err)
		}
		if err != nil {
			return nil, err
		}
		if a == nil {
			a = newAppender(p, l.records)
		} else if !a.add(p) {
			return nil, errDisagree
		}
	}
	return a.p, nil
}

// runReading is what google/pprof's reading of a run of n bytes (with
// the header and tail) may take, at the rate of a whole text's lines.
func runReading(l layout, n int) int64 {
	lines := bytes.Count(l.head, []byte("\n")) + bytes.Count(l.tail, []byte("\n")) + n/16 + 1
	return perLine*int64(lines) + int64(n)
}

// locate is the package's locate for run k, read as text: it names the
// line of the whole text.
func (l layout) locate(k int, text []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "parsing profile: ")
	runLines := bytes.Count(l.head, []byte("\n"))
	n, line, ok := failingLine(text, msg, runLines)
	if !ok {
		return fmt.Errorf("legacy text: google/pprof does not read it: %s", msg)
	}
	run := text[len(l.head) : len(text)-len(l.tail)]
	body := bytes.Count(run, []byte("\n"))
	if len(run) > 0 && run[len(run)-1] != '\n' {
		body++ // the text's last line, without a line break
	}
	switch {
	case n <= runLines: // the header's lines are the text's first
	case n <= runLines+body:
		n = l.lines[k] + n - runLines - 1
	default:
		n = l.tailAt + n - runLines - body - 1
	}
	return lineError(n, msg, line)
}

// appender adds the profiles of runs to the first.
type appender struct {
	p      *model.Profile
	b      *model.Builder
	header string
	seed   maphash.Seed
	locs   hashindex.Index
	funcs  map[model.Function]int32
	key    []byte

	// A run's strings, functions, locations and label sets in p.
	strs, fns, locIdx, sets []int32
	frames                  []int32
	labels                  []model.Label
	lines                   []model.Line

	// The samples' values, copied out of the runs' readings (which give
	// every sample a row of one array of the run's): a row equal to the
	// last sample's is shared.
	valSlab []int64
	lastRow []int64
}

func newAppender(p *model.Profile, records int) *appender {
	a := &appender{p: p, b: model.BuilderFor(p), header: header(p), seed: maphash.MakeSeed(), funcs: map[model.Function]int32{}}
	p.Samples = slices.Grow(p.Samples, records-len(p.Samples))
	// The first run's samples share rows as the others' do.
	for i := range p.Samples {
		p.Samples[i].SetValues(a.row(p.Samples[i].Values()))
	}
	for i, f := range p.Functions {
		if _, ok := a.funcs[f]; !ok {
			a.funcs[f] = int32(i)
		}
	}
	a.locs.Reserve(len(p.Locations))
	for i := range p.Locations {
		if _, slot, ok := a.findLocation(&p.Locations[i], p.LocationLines(i)); !ok {
			a.locs.Add(slot, uint32(i), a.rehashLocation)
		}
	}
	return a
}

// records is the number of samples added so far.
func (a *appender) records() int { return len(a.p.Samples) }

// header is what a run's reading shares with the whole text's but for
// its mappings.
func header(p *model.Profile) string {
	var b strings.Builder
	for _, t := range p.SampleTypes {
		fmt.Fprintf(&b, "%q %q %d;", p.String(t.Type), p.String(t.Unit), t.AggregationTemporality)
	}
	fmt.Fprintf(&b, "%q %q %d %q %d %d;", p.String(p.PeriodType.Type), p.String(p.PeriodType.Unit), p.Period,
		p.String(p.DefaultSampleType), p.TimeNanos, p.DurationNanos)
	for _, c := range p.Comments {
		fmt.Fprintf(&b, "%q ", p.String(c))
	}
	fmt.Fprintf(&b, "%q %q %q %x %d %d %d", p.String(p.DropFrames), p.String(p.KeepFrames), p.String(p.DocURL),
		p.ProfileID, len(p.Attributes), len(p.Links), len(p.LocationAttributes)+len(p.Columns))
	return b.String()
}

// add appends q's samples to a's profile; false when q does not read as
// a part of the same text.
func (a *appender) add(q *model.Profile) bool {
	p := a.p
	if len(q.Links) > 0 || q.Columns != nil || q.LocationAttributes != nil || header(q) != a.header {
		return false
	}
	a.strs = a.strs[:0]
	for _, s := range q.Strings {
		a.strs = append(a.strs, a.b.String(s))
	}
	if !a.addMappings(q) {
		return false
	}
	a.fns = a.fns[:0]
	for _, f := range q.Functions {
		f.Name, f.SystemName, f.Filename = a.strs[f.Name], a.strs[f.SystemName], a.strs[f.Filename]
		i, ok := a.funcs[f]
		if !ok {
			i = int32(len(p.Functions))
			p.Functions = append(p.Functions, f)
			a.funcs[f] = i
		}
		a.fns = append(a.fns, i)
	}
	a.locIdx = a.locIdx[:0]
	for i, l := range q.Locations {
		a.lines = a.lines[:0]
		for _, ln := range q.LocationLines(i) {
			if ln.Function != model.NoFunction {
				ln.Function = a.fns[ln.Function]
			}
			a.lines = append(a.lines, ln)
		}
		v, slot, ok := a.findLocation(&l, a.lines)
		if !ok {
			v = uint32(p.AddLocation(l, a.lines...))
			a.locs.Add(slot, v, a.rehashLocation)
		}
		a.locIdx = append(a.locIdx, int32(v))
	}
	a.sets = a.sets[:0]
	for _, ls := range q.LabelSets {
		a.labels = a.labels[:0]
		for _, l := range ls.Labels() {
			l.Key, l.Str, l.NumUnit = a.strs[l.Key], a.strs[l.Str], a.strs[l.NumUnit]
			a.labels = append(a.labels, l)
		}
		a.sets = append(a.sets, a.b.LabelSetWith(a.labels, ls.Attributes()))
	}
	for _, s := range q.Samples {
		a.frames = q.Stacks.Append(a.frames[:0], int(s.Stack))
		for j, f := range a.frames {
			a.frames[j] = a.locIdx[f]
		}
		s.Stack = a.b.Stack(a.frames)
		s.LabelSet = a.sets[s.LabelSet]
		s.SetValues(a.row(s.Values()))
		p.Samples = append(p.Samples, s)
	}
	return true
}

// row returns the values of a sample: the last row if equal, or a copy
// cut from a.valSlab.
func (a *appender) row(v []int64) []int64 {
	if a.lastRow != nil && slices.Equal(v, a.lastRow) {
		return a.lastRow
	}
	if cap(a.valSlab)-len(a.valSlab) < len(v) {
		a.valSlab = make([]int64, 0, max(4096, len(v)))
	}
	n := len(a.valSlab)
	a.valSlab = append(a.valSlab, v...)
	a.lastRow = a.valSlab[n:len(a.valSlab):len(a.valSlab)]
	return a.lastRow
}

// addMappings checks that q's mappings are p's: the same, or but for the
// mapping google/pprof adds last for addresses no mapping holds (which a
// run whose addresses all have one does not have).
func (a *appender) addMappings(q *model.Profile) bool {
	p := a.p
	n := min(len(p.Mappings), len(q.Mappings))
	for i := range n {
		if !a.sameMapping(q.Mappings[i], p.Mappings[i]) {
			return false
		}
	}
	switch {
	case len(q.Mappings) == len(p.Mappings):
	case len(q.Mappings) == n+1 && catchAll(q.Mappings[n]):
		m := q.Mappings[n]
		m.File, m.BuildID = a.strs[m.File], a.strs[m.BuildID]
		p.Mappings = append(p.Mappings, m)
	case len(p.Mappings) == n+1 && catchAll(p.Mappings[n]):
	default:
		return false
	}
	return true
}

func (a *appender) sameMapping(m, pm model.Mapping) bool {
	m.File, m.BuildID = a.strs[m.File], a.strs[m.BuildID]
	if len(m.Attributes) > 0 || len(pm.Attributes) > 0 {
		return false
	}
	m.Attributes, pm.Attributes = nil, nil
	return m.Start == pm.Start && m.Limit == pm.Limit && m.Offset == pm.Offset && m.File == pm.File && m.BuildID == pm.BuildID &&
		m.BuildIDKind == pm.BuildIDKind && m.HasFunctions == pm.HasFunctions && m.HasFilenames == pm.HasFilenames &&
		m.HasLineNumbers == pm.HasLineNumbers && m.HasInlineFrames == pm.HasInlineFrames
}

// catchAll reports whether m is the mapping google/pprof makes for the
// addresses no mapping of the text holds.
func catchAll(m model.Mapping) bool {
	return m.Start == 0 && m.Offset == 0 && m.Limit == ^uint64(0) && m.File == 0 && m.BuildID == 0 && len(m.Attributes) == 0
}

// findLocation finds the location of p at l's address and mapping with
// these lines.
func (a *appender) findLocation(l *model.Location, lines []model.Line) (uint32, int, bool) {
	p := a.p
	return a.locs.Find(a.hashLocation(l, lines), func(v uint32) bool {
		o := &p.Locations[v]
		return o.Address == l.Address && o.Mapping == l.Mapping && o.IsFolded == l.IsFolded && slices.Equal(p.LinesOf(o), lines)
	})
}

func (a *appender) rehashLocation(v uint32) uint64 {
	return a.hashLocation(&a.p.Locations[v], a.p.LocationLines(int(v)))
}

func (a *appender) hashLocation(l *model.Location, lines []model.Line) uint64 {
	k := binary.LittleEndian.AppendUint64(a.key[:0], l.Address)
	k = binary.LittleEndian.AppendUint32(k, uint32(l.Mapping))
	for _, ln := range lines {
		k = binary.LittleEndian.AppendUint32(k, uint32(ln.Function))
		k = binary.LittleEndian.AppendUint64(k, uint64(ln.Line))
	}
	a.key = k
	return maphash.Bytes(a.seed, k)
}
