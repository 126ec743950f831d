package gperftools

import (
	"encoding/binary"
	"math"
)

// A large profile's records are looked up by two workers, the decoder's
// goroutine and one more: from then on, every stack belongs to one of two
// raw tables, by half(raw), and each worker looks up and adds only the
// records of its own table. The decoder's goroutine reads the file in
// batches of whole records, and after both workers are done with a batch,
// it goes through its records in order as the sequential loop would (summed
// counts and their overflow, new stacks numbered in first-seen order,
// adjusted addresses, errors), with each record's number in its table in
// place of the lookup. So the output and the errors do not depend on the
// workers.

// parThreshold is the offset from which the records are read in parallel;
// smaller profiles are read by one goroutine. A variable for the tests.
var parThreshold int64 = 4 << 20

// parBufSize is the size of each of the two batch buffers.
var parBufSize = 2 << 20

// half returns the table of a record's raw PCs (at least one slot): a mix
// of their first and last 8 bytes, so that equal keys go to the same table.
// Table 1, looked up by the second worker, gets the larger share, about
// split/2^32 of the stacks: the decoder's goroutine also reads the file and
// counts the records.
func half(raw []byte) int {
	var x uint64
	if len(raw) >= 8 {
		x = binary.LittleEndian.Uint64(raw) ^ binary.LittleEndian.Uint64(raw[len(raw)-8:])*0x9e3779b97f4a7c15
	} else {
		x = uint64(binary.LittleEndian.Uint32(raw))
	}
	x ^= x >> 29
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 32
	if x&(1<<32-1) < split {
		return 1
	}
	return 0
}

// split is table 1's share of the stacks, in 2^32nds (see half).
var split uint64 = 7 * (1 << 32) / 10

// table returns the raw table of a record's PCs: table 0 until the records
// are read in parallel, half(raw) from then on.
func (d *decoder) table(raw []byte) int {
	if d.tabs[1] == nil {
		return 0
	}
	return half(raw)
}

// splitTables moves the stacks of table 0 that half gives to table 1 there,
// so that parallel reading finds them. It returns false when table 1 cannot
// hold them (its arena is at its limit).
func (d *decoder) splitTables() bool {
	t0 := d.tabs[0]
	t1 := newRawTable(d.lay, t0.seed)
	var raw []byte
	for _, sl := range t0.slots {
		if sl.stack == 0 {
			continue
		}
		key := t0.keyAt(sl.ref)
		if sl.ref&compactRef != 0 {
			// Back to the record's 64-bit little-endian PCs.
			raw = raw[:0]
			hi := key[:4]
			for i := 4; i+4 <= len(key); i += 4 {
				raw = append(append(raw, key[i:i+4]...), hi...)
			}
			key = raw
		}
		if half(key) != 1 {
			continue // stays in table 0; a record of table 1 never equals it
		}
		if _, ok := t1.add(sl.hash, key); !ok {
			return false
		}
		d.glob[1] = append(grow(d.glob[1], 1), d.glob[0][sl.stack-1])
	}
	d.tabs[1] = t1
	return true
}

// parBatch is a buffer of whole records, each checked as the sequential loop
// checks it before looking it up.
type parBatch struct {
	buf  []byte
	at   int64    // file offset of buf[0]
	recs []uint32 // offset in buf of each record
	out  []int32  // each record's number in its table, or -1 for a new key
	// added are the keys each worker added, in order, from table number
	// base; a nil key is one that could not be added (the arena is at its
	// limit). Only the batch holds them while the worker may still grow
	// its table.
	added [2][]resKey
	base  [2]int32
	stop  bool // the record after the batch is for the sequential loop
	sink  [2]uint64
}

// raw returns the PCs of record i.
func (b *parBatch) raw(lay Layout, i int) []byte {
	s := lay.SlotSize
	rec := b.buf[b.recs[i]:]
	n := int(lay.slot(rec[s:]))
	return rec[2*s : (2+n)*s]
}

// parallel reads records in batches, looked up by two workers, until one
// that the batches leave to the sequential loop: a record that is bad, cut,
// longer than a batch buffer, the trailer or the end of the file. It returns
// with that record next in the reader, after every earlier one is counted
// exactly as the sequential loop counts it, and with its worker ended.
func (d *decoder) parallel() (err error) {
	if !d.splitTables() {
		d.glob[1] = nil
		return nil
	}
	in := make(chan *parBatch)
	done := make(chan struct{})
	go func() {
		for b := range in {
			d.work(1, b)
			done <- struct{}{}
		}
		close(done)
	}()
	busy := false // the worker has a batch
	defer func() {
		if busy {
			<-done
		}
		close(in)
		<-done
	}()

	var batches [2]parBatch
	for i := range batches {
		batches[i].buf = make([]byte, max(parBufSize, len(d.rd.buf)))
	}
	var prev *parBatch // looked up, not yet counted
	for cur := 0; ; cur ^= 1 {
		b := &batches[cur]
		d.fillBatch(b)
		if busy {
			<-done
			busy = false
		}
		if len(b.recs) > 0 {
			in <- b
			busy = true
		}
		if prev != nil {
			if err := d.count(prev); err != nil {
				return err
			}
			prev = nil
		}
		if len(b.recs) == 0 {
			return nil
		}
		d.work(0, b)
		prev = b
		if b.stop {
			<-done
			busy = false
			return d.count(b)
		}
	}
}

// fillBatch moves the reader to b.buf, with the bytes it had left, fills it
// and takes the whole records in it into b.
func (d *decoder) fillBatch(b *parBatch) {
	rd, lay := d.rd, d.lay
	s := lay.SlotSize
	n := copy(b.buf, rd.buf[rd.lo:rd.hi])
	rd.buf, rd.lo, rd.hi = b.buf, 0, n
	rd.readUntil(len(rd.buf))
	b.at = rd.off
	b.recs, b.out, b.stop = b.recs[:0], b.out[:0], false
	if rd.readErr() != nil {
		b.stop = true
		return
	}
	rem, sized := rd.remaining()
	buf := rd.buf[:rd.hi]
	p := 0
	for {
		if len(buf)-p < 2*s {
			b.stop = rd.err != nil
			break
		}
		count, npcs := lay.slot(buf[p:]), lay.slot(buf[p+s:])
		if count == 0 || npcs == 0 || npcs > maxPCs {
			b.stop = true
			break
		}
		end := p + (2+int(npcs))*s
		if sized && int64(end-p) > rem-int64(p) {
			b.stop = true
			break
		}
		if end > len(buf) {
			b.stop = rd.err != nil || end-p > len(rd.buf)
			break
		}
		b.recs = append(b.recs, uint32(p))
		p = end
	}
	rd.skip(p)
	if cap(b.out) < len(b.recs) {
		b.out = make([]int32, len(b.recs), cap(b.recs))
	}
	b.out = b.out[:len(b.recs)]
}

// work looks up the records of b in table w, adding the new ones, and
// writes their numbers in that table to b.out. The hashes and table slots
// of the next few records are loaded together, so their cache misses
// overlap.
func (d *decoder) work(w int, b *parBatch) {
	t, lay := d.tabs[w], d.lay
	b.added[w], b.base[w] = b.added[w][:0], int32(t.n)
	var (
		hs   [16]uint64
		klen [16]uint32
		idx  [16]int32
		sink uint64
	)
	for i := 0; i < len(b.recs); {
		n := 0
		for ; i < len(b.recs) && n < len(hs); i++ {
			raw := b.raw(lay, i)
			if half(raw) != w {
				continue
			}
			idx[n], hs[n], klen[n] = int32(i), t.hash(raw), uint32(len(raw))
			n++
		}
		sink += t.touch(hs[:n], klen[:n])
		for k := range n {
			raw := b.raw(lay, int(idx[k]))
			l := t.find(hs[k], raw)
			if l < 0 {
				var key resKey
				if ref, ok := t.add(hs[k], raw); ok {
					key = resKey{t.keyAt(ref), ref&compactRef != 0}
				}
				b.added[w] = append(b.added[w], key)
			}
			b.out[idx[k]] = l
		}
	}
	b.sink[w] += sink
}

// count goes through the records of b in order, as the sequential loop does
// after its lookup.
func (d *decoder) count(b *parBatch) error {
	lay := d.lay
	s := lay.SlotSize
	maxCount := uint64(math.MaxInt64 / d.periodN)
	for i, off := range b.recs {
		rec := b.buf[off:]
		count := lay.slot(rec)
		raw := b.raw(lay, i)
		at := b.at + int64(off)
		w, l := half(raw), b.out[i]
		idx, ok := int32(0), false
		if l >= 0 {
			idx, ok = d.glob[w][l], true
		}
		var sum uint64
		if ok {
			sum = d.counts[idx]
		}
		if count > maxCount-sum {
			return d.recEnd(at, 2*s+len(raw), "the summed count of its stack × period %d ns overflows int64", d.periodN)
		}
		if !ok {
			var err error
			if idx, err = d.newStack(raw, w, 0, &b.added[w][int32(len(d.glob[w]))-b.base[w]], at); err != nil {
				d.rd.off = at + int64(2*s+len(raw))
				return err
			}
			if count > maxCount-d.counts[idx] {
				return d.recEnd(at, 2*s+len(raw), "the summed count of its stack × period %d ns overflows int64", d.periodN)
			}
		}
		d.counts[idx] += count
		d.info.Records++
		if d.info.TotalCount += count; d.info.TotalCount < count {
			d.info.TotalCount = math.MaxUint64
		}
		d.info.MaxDepth = max(d.info.MaxDepth, len(raw)/s)
	}
	return nil
}

// recEnd is recErr for a record of a batch, n bytes long: the reader's offset
// is left after it, as the sequential loop leaves it.
func (d *decoder) recEnd(at int64, n int, format string, args ...any) error {
	d.rd.off = at + int64(n)
	return d.recErr(at, format, args...)
}
