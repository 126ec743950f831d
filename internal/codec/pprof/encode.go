package pprof

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// EncodeOptions control Encode.
type EncodeOptions struct {
	// Raw writes the protobuf uncompressed; the default is gzip, as pprof
	// writes it.
	Raw bool
	// Warn, when not nil, is told once about each kind of thing in the
	// model that profile.proto cannot hold and that is therefore dropped.
	Warn func(msg string)
}

// Encode writes p as a pprof profile.proto, gzipped unless opts.Raw.
// Ids are the model's indices plus one. Every table entry is written,
// referenced or not. The output is a function of p alone: the same
// profile gives the same bytes. The encoding reaches w in pieces of about
// 1 MiB (see pieces), never whole in memory.
func Encode(w io.Writer, p *model.Profile, opts EncodeOptions) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("pprof: %v", err)
	}
	if m := Unrepresentable(p); m != "" && opts.Warn != nil {
		opts.Warn(m)
	}
	pc := newPieces(w, opts.Raw, estimateSize(p))
	pc.buf = appendHead(pc.buf, p)
	var err error
	pc.buf, err = appendSamples(pc.buf, p, pc.next)
	if err == nil {
		pc.buf, err = appendTail(pc.buf, p, pc.next)
	}
	return pc.close(err)
}

// pieces writes an encoding to w as it is made: raw, in pieces of about
// chunk bytes; gzipped, by the compressor Encode chooses for the
// encoding's size (newGzip), which is known once the encoding reached
// ParallelGzipFrom or ended, and then in pieces of chunk bytes. The bytes
// are those of the whole encoding written at once: pgzip cuts its input
// into blocks by their size alone.
type pieces struct {
	w, out  io.Writer
	zw      io.WriteCloser
	buf     []byte
	flushAt int
}

const chunk = 1 << 20

// newPieces returns pieces to w for an encoding of about size bytes. The
// buffer starts at that size, or at what is written before a flush: a
// profile of a few kilobytes does not take megabytes it never writes
// (whose allocation alone would start a garbage collection), and a large
// one is not copied into larger buffers as it is written.
func newPieces(w io.Writer, raw bool, size int) *pieces {
	pc := &pieces{w: w, flushAt: chunk}
	if raw {
		pc.out = w
	} else {
		pc.flushAt = ParallelGzipFrom
	}
	pc.buf = make([]byte, 0, min(pc.flushAt+pc.flushAt/4, size))
	return pc
}

// next is called with the buffer after each piece of the encoding that
// is appended to it: it writes the buffer out once it holds enough.
func (pc *pieces) next(b []byte) ([]byte, error) {
	pc.buf = b
	if len(b) < pc.flushAt {
		return b, nil
	}
	err := pc.flush()
	return pc.buf, err
}

func (pc *pieces) flush() error {
	if pc.out == nil {
		zw, err := newGzip(pc.w, len(pc.buf))
		if err != nil {
			return err
		}
		pc.zw, pc.out, pc.flushAt = zw, zw, chunk
	}
	_, err := pc.out.Write(pc.buf)
	pc.buf = pc.buf[:0]
	return err
}

// close writes what is left, after an encoding that ended with err, and
// ends the gzip stream.
func (pc *pieces) close(err error) error {
	if err == nil {
		err = pc.flush()
	}
	if pc.zw != nil {
		if cerr := pc.zw.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Unrepresentable names, in one message, what p holds that profile.proto
// has no field for ("" when nothing).
func Unrepresentable(p *model.Profile) string {
	var lost []string
	var links, stamps bool
	for i := range p.Samples {
		s := &p.Samples[i]
		links = links || s.Link != model.NoLink
		stamps = stamps || len(s.Timestamps()) > 0
	}
	if links {
		lost = append(lost, "sample links (trace/span ids)")
	}
	if stamps {
		lost = append(lost, "sample timestamps")
	}
	var temporality, kind bool
	for _, t := range p.SampleTypes {
		temporality = temporality || t.AggregationTemporality != 0
	}
	temporality = temporality || p.PeriodType.AggregationTemporality != 0
	for _, m := range p.Mappings {
		kind = kind || m.BuildIDKind != 0
	}
	if temporality {
		lost = append(lost, "aggregation temporality")
	}
	if kind {
		lost = append(lost, "a mapping's build id kind")
	}
	if len(p.Resource.Attributes) > 0 || p.Resource.SchemaURL != "" {
		lost = append(lost, "resource attributes")
	}
	if p.Scope.Name != "" || p.Scope.Version != "" || len(p.Scope.Attributes) > 0 {
		lost = append(lost, "the instrumentation scope")
	}
	if len(p.Attributes) > 0 {
		lost = append(lost, "profile attributes")
	}
	if len(p.ProfileID) > 0 {
		lost = append(lost, "the profile id")
	}
	if len(p.OriginalPayload) > 0 {
		lost = append(lost, "the original payload")
	}
	if k := sampleAttrKeys(p); k != "" {
		lost = append(lost, "sample attributes that labels cannot hold ("+k+")")
	}
	if k := attrKeys(p, false); k != "" {
		lost = append(lost, "mapping attributes ("+k+")")
	}
	if k := attrKeys(p, true); k != "" {
		lost = append(lost, "location attributes ("+k+")")
	}
	msg := ""
	if len(lost) > 0 {
		msg = "pprof has no field for " + strings.Join(lost, ", ") + "; dropped"
	}
	if hasLineWithoutFunction(p) {
		if msg != "" {
			msg += "; "
		}
		msg += "pprof rejects a line without a function: such lines name an empty function"
	}
	return msg
}

// attrKeys lists the distinct attribute keys of p's locations (or
// mappings), sorted.
func attrKeys(p *model.Profile, locations bool) string {
	seen := map[string]bool{}
	if locations {
		for _, as := range p.LocationAttributes {
			for _, a := range as {
				seen[a.Key] = true
			}
		}
	} else {
		for i := range p.Mappings {
			for _, a := range p.Mappings[i].Attributes {
				seen[a.Key] = true
			}
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// sampleAttrKeys lists the distinct keys of the attributes that the label
// sets of p's samples hold beside their labels, sorted.
func sampleAttrKeys(p *model.Profile) string {
	seen := map[string]bool{}
	for i := range p.Samples {
		if ls := p.Samples[i].LabelSet; ls >= 0 && int(ls) < len(p.LabelSets) {
			for _, a := range p.LabelSets[ls].Attributes() {
				seen[a.Key] = true
			}
		}
	}
	if len(seen) == 0 {
		return ""
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// hasLineWithoutFunction reports whether some location has a line with no
// function. google/pprof rejects such a file ("has a line with nil
// function"), so the writer points those lines at an empty function added
// after the model's.
func hasLineWithoutFunction(p *model.Profile) bool {
	for i := range p.Locations {
		for _, ln := range p.LocationLines(i) {
			if ln.Function == model.NoFunction {
				return true
			}
		}
	}
	return false
}

func estimateSize(p *model.Profile) int {
	n := len(p.Samples)*(8+4*len(p.SampleTypes)) + tablesSize(p)
	// Each sample writes its stack's location ids (about 2 bytes each)
	// and its labels: an estimate short of them made the buffer grow, a
	// second allocation as large as the output.
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Stack >= 0 && int(s.Stack) < p.Stacks.Len() {
			n += 2 * p.Stacks.StackLen(int(s.Stack))
		}
		if int(s.LabelSet) < len(p.LabelSets) && s.LabelSet >= 0 {
			n += 8 * len(p.LabelSets[s.LabelSet].Labels())
		}
	}
	return n
}

// tablesSize is about what appendHead and appendTail write: the tables
// (a symbolized location's lines, some 10 bytes each, included: an
// estimate short of them made the buffer grow by copies, each one fresh
// pages to fault in).
func tablesSize(p *model.Profile) int {
	n := 64 + len(p.Locations)*16 + len(p.Functions)*12 + len(p.Mappings)*40
	for i := range p.Locations {
		n += 10 * int(p.Locations[i].NumLines)
	}
	for _, s := range p.Strings {
		n += len(s) + 2
	}
	return n
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBoolField(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return appendVarintField(b, num, 1)
}

// appendMessage appends field num holding the message that fn appends.
// The length prefix is reserved at one byte and moved if it needs more.
func appendMessage(b []byte, num protowire.Number, fn func(b []byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	at := len(b)
	b = append(b, 0)
	b = fn(b)
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b
	}
	size := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, size-1)...)
	copy(b[at+size:], b[at+1:at+1+n])
	protowire.AppendVarint(b[at:at], uint64(n))
	return b
}

func appendValueType(b []byte, num protowire.Number, vt model.ValueType) []byte {
	return appendMessage(b, num, func(b []byte) []byte {
		b = appendVarintField(b, 1, uint64(vt.Type))
		return appendVarintField(b, 2, uint64(vt.Unit))
	})
}

// AppendRaw appends p, encoded as an uncompressed profile.proto, to b.
// p must be valid (see model.Profile.Validate). A line with no function
// names an empty function written after the model's functions (see
// Unrepresentable).
func AppendRaw(b []byte, p *model.Profile) []byte {
	b = appendHead(b, p)
	b, _ = appendSamples(b, p, nil)
	b, _ = appendTail(b, p, nil)
	return b
}

// appendSamples appends p's samples to b. next, when not nil, is given b
// after each sample and returns what to go on with (the buffer emptied
// once written out).
func appendSamples(b []byte, p *model.Profile, next func([]byte) ([]byte, error)) ([]byte, error) {
	// The packed location ids of a stack that samples share are encoded
	// once and copied; those of a stack of one sample are encoded in
	// place (the only copy of a stack of millions of frames is then the
	// output's).
	// The shared stacks' ids are counted first, to make their buffer at
	// its size: ids of more than 16,383 locations take 3 bytes each, and a
	// buffer grown by append would hold its old array and one twice as
	// large at once.
	nStacks := p.Stacks.Len()
	uses := make([]uint8, nStacks) // 0, 1, or 2 for two or more
	shared, size := false, 0
	for i := range p.Samples {
		s := p.Samples[i].Stack
		if uses[s] < 2 {
			uses[s]++
			if uses[s] == 2 {
				shared = true
				size += stackIDsSize(&p.Stacks, int(s))
			}
		}
	}
	var stackOff []int
	var stackBytes []byte
	if shared {
		stackOff = make([]int, nStacks+1)
		stackBytes = make([]byte, 0, size)
		for i := 0; i < nStacks; i++ {
			if uses[i] == 2 {
				stackBytes = appendStackIDs(stackBytes, &p.Stacks, i)
			}
			stackOff[i+1] = len(stackBytes)
		}
	}
	for i := range p.Samples {
		s := &p.Samples[i]
		labels := p.LabelSets[s.LabelSet].Labels()
		if uses[s.Stack] == 2 {
			b = appendSample(b, stackBytes[stackOff[s.Stack]:stackOff[s.Stack+1]], s.Values(), labels)
		} else {
			if p.Stacks.StackLen(int(s.Stack)) > chunk {
				// Room made once for a stack of millions of frames: the
				// buffer grown by append would hold its old array and
				// one twice as large at once.
				b = reserve(b, stackIDsSize(&p.Stacks, int(s.Stack))+16*(len(s.Values())+4*len(labels))+32)
			}
			b = appendStackSample(b, &p.Stacks, int(s.Stack), s.Values(), labels)
		}
		if next != nil {
			var err error
			if b, err = next(b); err != nil {
				return b, err
			}
		}
	}
	return b, nil
}

// appendHead appends what comes before the samples: the sample types.
func appendHead(b []byte, p *model.Profile) []byte {
	for _, st := range p.SampleTypes {
		b = appendValueType(b, fSampleType, st)
	}
	return b
}

// appendPackedIDs appends the location ids of a stack as packed varints.
func appendPackedIDs(b []byte, stack []int32) []byte {
	for _, l := range stack {
		b = protowire.AppendVarint(b, uint64(l)+1)
	}
	return b
}

// stackIDsSize is the size of stack i's location ids as packed varints.
func stackIDsSize(st *model.Stacks, i int) int {
	n := 0
	for j := range st.StackLen(i) {
		n += protowire.SizeVarint(uint64(st.Frame(i, j)) + 1)
	}
	return n
}

// reserve returns b with room for n more bytes.
func reserve(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}

// appendStackIDs is appendPackedIDs for stack i of st, read in place (a
// stack may be too long to copy).
func appendStackIDs(b []byte, st *model.Stacks, i int) []byte {
	for j := range st.StackLen(i) {
		b = protowire.AppendVarint(b, uint64(st.Frame(i, j))+1)
	}
	return b
}

// appendSample appends one sample: its packed location ids, values and labels.
func appendSample(b []byte, ids []byte, values []int64, labels []model.Label) []byte {
	return appendMessage(b, fSample, func(b []byte) []byte {
		if len(ids) > 0 {
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendBytes(b, ids)
		}
		return appendValuesLabels(b, values, labels)
	})
}

// appendStackSample is appendSample with the location ids of stack i of
// st, encoded in place.
func appendStackSample(b []byte, st *model.Stacks, i int, values []int64, labels []model.Label) []byte {
	return appendMessage(b, fSample, func(b []byte) []byte {
		if st.StackLen(i) > 0 {
			b = appendMessage(b, 1, func(b []byte) []byte { return appendStackIDs(b, st, i) })
		}
		return appendValuesLabels(b, values, labels)
	})
}

// appendValuesLabels appends a sample's values and labels.
func appendValuesLabels(b []byte, values []int64, labels []model.Label) []byte {
	if len(values) > 0 {
		b = appendMessage(b, 2, func(b []byte) []byte {
			for _, v := range values {
				b = protowire.AppendVarint(b, uint64(v))
			}
			return b
		})
	}
	for _, l := range labels {
		b = appendMessage(b, 3, func(b []byte) []byte {
			b = appendVarintField(b, 1, uint64(l.Key))
			b = appendVarintField(b, 2, uint64(l.Str))
			b = appendVarintField(b, 3, uint64(l.Num))
			return appendVarintField(b, 4, uint64(l.NumUnit))
		})
	}
	return b
}

// appendTail appends what comes after the samples: the tables and the
// profile-level fields.
func appendTail(b []byte, p *model.Profile, next func([]byte) ([]byte, error)) ([]byte, error) {
	// A table of millions of entries goes out as it is written.
	var err error
	step := func() bool {
		if next != nil && err == nil {
			b, err = next(b)
		}
		return err == nil
	}
	// Function id of lines with no function; 0: none has been seen.
	noFunc := uint64(0)
	if hasLineWithoutFunction(p) {
		noFunc = uint64(len(p.Functions)) + 1
	}
	for i, m := range p.Mappings {
		b = appendMessage(b, fMapping, func(b []byte) []byte {
			b = appendVarintField(b, 1, uint64(i)+1)
			b = appendVarintField(b, 2, m.Start)
			b = appendVarintField(b, 3, m.Limit)
			b = appendVarintField(b, 4, m.Offset)
			b = appendVarintField(b, 5, uint64(m.File))
			b = appendVarintField(b, 6, uint64(m.BuildID))
			b = appendBoolField(b, 7, m.HasFunctions)
			b = appendBoolField(b, 8, m.HasFilenames)
			b = appendBoolField(b, 9, m.HasLineNumbers)
			return appendBoolField(b, 10, m.HasInlineFrames)
		})
		if !step() {
			return b, err
		}
	}
	for i := range p.Locations {
		l := &p.Locations[i]
		b = appendMessage(b, fLocation, func(b []byte) []byte {
			b = appendVarintField(b, 1, uint64(i)+1)
			if l.Mapping != model.NoMapping {
				b = appendVarintField(b, 2, uint64(l.Mapping)+1)
			}
			b = appendVarintField(b, 3, l.Address)
			for j, ln := range p.LinesOf(l) {
				b = appendMessage(b, 4, func(b []byte) []byte {
					if ln.Function != model.NoFunction {
						b = appendVarintField(b, 1, uint64(ln.Function)+1)
					} else {
						b = appendVarintField(b, 1, noFunc)
					}
					b = appendVarintField(b, 2, uint64(ln.Line))
					return appendVarintField(b, 3, uint64(p.ColumnOf(l, j)))
				})
			}
			return appendBoolField(b, 5, l.IsFolded)
		})
		if !step() {
			return b, err
		}
	}
	for i, f := range p.Functions {
		b = appendMessage(b, fFunction, func(b []byte) []byte {
			b = appendVarintField(b, 1, uint64(i)+1)
			b = appendVarintField(b, 2, uint64(f.Name))
			b = appendVarintField(b, 3, uint64(f.SystemName))
			b = appendVarintField(b, 4, uint64(f.Filename))
			return appendVarintField(b, 5, uint64(f.StartLine))
		})
		if !step() {
			return b, err
		}
	}
	if noFunc != 0 {
		b = appendMessage(b, fFunction, func(b []byte) []byte { return appendVarintField(b, 1, noFunc) })
	}
	for _, s := range p.Strings {
		b = protowire.AppendTag(b, fStringTable, protowire.BytesType)
		b = protowire.AppendString(b, s)
		if !step() {
			return b, err
		}
	}
	b = appendVarintField(b, fDropFrames, uint64(p.DropFrames))
	b = appendVarintField(b, fKeepFrames, uint64(p.KeepFrames))
	b = appendVarintField(b, fTimeNanos, uint64(p.TimeNanos))
	b = appendVarintField(b, fDurationNanos, uint64(p.DurationNanos))
	if p.PeriodType.Type != 0 || p.PeriodType.Unit != 0 {
		b = appendValueType(b, fPeriodType, p.PeriodType)
	}
	b = appendVarintField(b, fPeriod, uint64(p.Period))
	if len(p.Comments) > 0 {
		b = appendMessage(b, fComment, func(b []byte) []byte {
			for _, c := range p.Comments {
				b = protowire.AppendVarint(b, uint64(c))
			}
			return b
		})
	}
	b = appendVarintField(b, fDefaultSampleType, uint64(p.DefaultSampleType))
	return appendVarintField(b, fDocURL, uint64(p.DocURL)), nil
}
