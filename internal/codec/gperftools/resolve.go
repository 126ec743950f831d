package gperftools

import (
	"encoding/binary"

	"github.com/pprofx/pprofx/internal/model"
)

// resolver turns the raw keys of the distinct stacks, in stack order, into
// frames: each PC is adjusted (every non-leaf PC is a return address and is
// decreased by one, a PC of 0 stays 0) and numbered as a location in order
// of first use. Once a large profile has given it a full batch, it runs in
// its own goroutine, alongside the record loop; the output does not depend
// on it, since one goroutine resolves every stack in order.
type resolver struct {
	lay       Layout
	locs      *addrTable
	stacks    model.Stacks
	frames    []int32
	cur, next []uint64
	sink      uint64

	pending []resKey      // keys not yet handed over; the decoder's
	in      chan []resKey // batches for the goroutine; nil until started
	free    chan []resKey // used batches, back to the decoder
	done    chan struct{} // closed when the goroutine has finished
}

// resKey is the raw key of a stack, compact or not (see rawTable).
type resKey struct {
	b       []byte
	compact bool
}

// resolveBatch is how many stacks are handed over at a time.
const resolveBatch = 512

// maxQueued bounds the batches waiting for the goroutine; the decoder waits
// when that many are queued.
const maxQueued = 1 << 10

func newResolver(lay Layout) *resolver {
	return &resolver{lay: lay, locs: newAddrTable()}
}

// add queues the raw key of the next stack. key must not change afterwards.
func (r *resolver) add(key []byte, compact bool) {
	if r.pending == nil {
		r.pending = make([]resKey, 0, resolveBatch)
	}
	r.pending = append(r.pending, resKey{key, compact})
	if len(r.pending) < resolveBatch {
		return
	}
	if r.in == nil {
		r.in = make(chan []resKey, maxQueued)
		r.free = make(chan []resKey, maxQueued)
		r.done = make(chan struct{})
		go r.run()
	}
	r.in <- r.pending
	select {
	case b := <-r.free:
		r.pending = b[:0]
	default:
		r.pending = make([]resKey, 0, resolveBatch)
	}
}

func (r *resolver) run() {
	for b := range r.in {
		r.resolve(b)
		clear(b)
		select {
		case r.free <- b:
		default:
		}
	}
	close(r.done)
}

// finish resolves what is left and returns when every stack is resolved.
func (r *resolver) finish() {
	if r.in == nil {
		r.resolve(r.pending)
	} else {
		if len(r.pending) > 0 {
			r.in <- r.pending
		}
		r.stop()
	}
	r.pending = nil
}

// stop ends the goroutine, if any, and waits for it.
func (r *resolver) stop() {
	if r.in != nil {
		close(r.in)
		<-r.done
		r.in = nil
	}
}

// resolve appends the stacks of these keys. The address lookups of the
// next stack are issued before the current one's are resolved, so that
// their cache misses overlap with work.
func (r *resolver) resolve(keys []resKey) {
	if len(keys) == 0 {
		return
	}
	st := &r.stacks
	r.next = r.load(r.next, keys[0])
	fr := r.frames
	for k := range keys {
		r.cur, r.next = r.next, r.cur
		if k+1 < len(keys) {
			r.next = r.load(r.next, keys[k+1])
			r.sink += r.locs.touch(r.next)
		}
		fr = fr[:0]
		for _, pc := range r.cur {
			fr = append(fr, r.locs.index(pc))
		}
		// Double the table when full: append's smaller steps would copy
		// the frames several times over on a large profile.
		if st.FrameRoom() < len(fr) || st.StackRoom() < 1 {
			st.Grow(max(st.Len(), 1024), max(st.NumFrames(), len(fr), 16<<10))
		}
		st.Add(fr)
	}
	r.frames = fr
}

// load returns the adjusted PCs of a raw key.
func (r *resolver) load(buf []uint64, key resKey) []uint64 {
	buf = buf[:0]
	raw := key.b
	if key.compact {
		hi := uint64(binary.LittleEndian.Uint32(raw)) << 32
		for i := 4; i+4 <= len(raw); i += 4 {
			pc := hi | uint64(binary.LittleEndian.Uint32(raw[i:]))
			if i > 4 && pc > 0 {
				pc-- // a return address: point into the call instruction
			}
			buf = append(buf, pc)
		}
		return buf
	}
	s := r.lay.SlotSize
	for i := 0; i+s <= len(raw); i += s {
		pc := r.lay.slot(raw[i:])
		if i > 0 && pc > 0 {
			pc-- // a return address: point into the call instruction
		}
		buf = append(buf, pc)
	}
	return buf
}
