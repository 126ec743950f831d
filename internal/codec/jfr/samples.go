package jfr

import (
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/pprofx/pprofx/internal/model"
)

// An event becomes a model sample as it is read: its stack, its thread's
// label set and its time. Its values are a row as wide as all the
// profile's sample types, known only when every chunk is read, holding the
// event's count and measure in its kind's two columns. Most events of a
// recording have one of few such rows (every CPU sample of a chunk has the
// same), so each distinct row is stored once and shared by the samples
// that have it (model.Sample.Values says rows may be shared): each sample
// keeps the index of its row, and finish points it at the row.

// row is a sample's values before the sample types are known. A count is
// 1, or a wall-clock sample's 32-bit count of samples.
type row struct {
	measure int64
	count   uint32
	kind    uint8
}

// rows are the distinct value rows of the profile.
type rows struct {
	rowOf []int32 // per model sample: its row
	all   []row
	// Rows by value: an open-addressing table of indexes into all, +1 (0
	// is free), at most half full, hashed with a random seed.
	slots []int32
	seed  uint64
	last  [numKinds]int32 // per kind, the row used last, +1

	times []uint64 // per model sample: its timestamp

	// The chunk being read: its periods, whether async-profiler recorded
	// wall-clock time as jdk.ExecutionSample, and its samples of each kind.
	periods  [numKinds]int64
	wallExec bool
	kindN    [numKinds]int
}

// beginChunk prepares for a chunk of at most n samples, with its periods.
func (d *decoder) beginChunk(n int, periods [numKinds]int64, wallExec bool) {
	rs := &d.rows
	if rs.slots == nil {
		rs.seed = maphash.Comparable(maphash.MakeSeed(), 0)
		rs.slots = make([]int32, 64)
	}
	rs.periods, rs.wallExec, rs.kindN = periods, wallExec, [numKinds]int{}
	pr := d.b.P
	pr.Samples = slices.Grow(pr.Samples, n)
	rs.rowOf = slices.Grow(rs.rowOf, n)
	rs.times = slices.Grow(rs.times, n)
}

// dropChunk forgets the samples of a chunk not read whole, from first on.
// Rows only they used stay, unused.
func (d *decoder) dropChunk(first int) {
	d.b.P.Samples = d.b.P.Samples[:first]
	d.rows.rowOf = d.rows.rowOf[:first]
	d.rows.times = d.rows.times[:first]
}

// addSample adds a sample of event e: a CPU or wall-clock sample is worth
// its count times the chunk's period.
func (d *decoder) addSample(e *event, stack, labelSet int32, time uint64) {
	rs := &d.rows
	kd := e.kind
	if kd == kCPU && rs.wallExec {
		kd = kWall
	}
	k := row{kind: uint8(kd), count: uint32(e.count), measure: e.measure}
	if kd == kCPU || kd == kWall {
		k.measure = e.count * rs.periods[kd]
	}
	rs.kindN[k.kind]++
	id := rs.last[k.kind] - 1
	if id < 0 || rs.all[id] != k {
		id = rs.row(k)
		rs.last[k.kind] = id + 1
	}
	rs.times = append(rs.times, time)
	rs.rowOf = append(rs.rowOf, id)
	// The sample's slices are set by finish: no pointer is written here.
	pr := d.b.P
	if len(pr.Samples) == cap(pr.Samples) {
		pr.Samples = slices.Grow(pr.Samples, 1)
	}
	pr.Samples = pr.Samples[:len(pr.Samples)+1]
	s := &pr.Samples[len(pr.Samples)-1]
	s.Stack, s.LabelSet, s.Link = stack, labelSet, model.NoLink
}

// row returns the index of row k, added if new.
func (rs *rows) row(k row) int32 {
	if 2*(len(rs.all)+1) > len(rs.slots) {
		rs.rehash(2 * len(rs.slots))
	}
	mask := uint64(len(rs.slots) - 1)
	for h := rs.hash(k) & mask; ; h = (h + 1) & mask {
		s := rs.slots[h]
		if s == 0 {
			rs.all = append(rs.all, k)
			rs.slots[h] = int32(len(rs.all))
			return int32(len(rs.all) - 1)
		}
		if rs.all[s-1] == k {
			return s - 1
		}
	}
}

// hash hashes a row with the table's seed, by murmur3's 64-bit finalizer
// (every output bit depends on every input bit) over each part in turn.
func (rs *rows) hash(k row) uint64 {
	x := fmix64(uint64(k.measure) ^ rs.seed)
	return fmix64(x ^ uint64(k.count)<<8 ^ uint64(k.kind))
}

func fmix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// rehash makes the table of rows n slots (a power of 2).
func (rs *rows) rehash(n int) {
	rs.slots = make([]int32, n)
	mask := uint64(n - 1)
	for i, k := range rs.all {
		h := rs.hash(k) & mask
		for rs.slots[h] != 0 {
			h = (h + 1) & mask
		}
		rs.slots[h] = int32(i + 1)
	}
}

// settle completes a chunk read whole.
func (d *decoder) settle(h header) {
	rs := &d.rows
	for k, n := range rs.kindN {
		if n == 0 {
			continue
		}
		d.present[k] = true
		if (k == int(kCPU) || k == int(kWall)) && rs.periods[k] == 0 {
			d.warn(fmt.Sprintf("jfr: chunk %d: no sampling period recorded for %d %s samples; their %s are 0", d.info.Chunks+1, n, sampleTypes[k][0][0], sampleTypes[k][1][0]))
		}
	}
	for k, per := range rs.periods {
		if per > 0 && d.present[k] && (d.period[k] == 0 || per < d.period[k]) {
			d.period[k] = per
		}
	}
	if d.start == 0 || h.startNanos < d.start {
		d.start = h.startNanos
	}
	if end := h.startNanos + h.durationNanos; end > d.end {
		d.end = end
	}
}

// finish completes the profile from the samples of every chunk read.
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
	rs := &d.rows
	values := make([]int64, width*len(rs.all))
	for i, k := range rs.all {
		if col[k.kind] < 0 {
			continue // a row of a chunk dropped
		}
		values[i*width+col[k.kind]] = int64(k.count)
		values[i*width+col[k.kind]+1] = k.measure
	}
	for i := range pr.Samples {
		r := int(rs.rowOf[i])
		s := &pr.Samples[i]
		s.SetValues(values[r*width : (r+1)*width : (r+1)*width])
		s.SetTimestamps(rs.times[i : i+1 : i+1])
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
