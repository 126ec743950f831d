// Package streamenc holds what the OTLP writers need to write a profile
// whose samples are streamed (a gperftools input read by gperftools.Stream)
// with memory bounded by a budget, not by the stacks' frames: an external
// sort of the samples' stacks (SortStacks) and a protobuf splicer (Splice)
// that puts streamed sections into a message the whole-model writer laid
// out, fixing the lengths of the messages around them.
package streamenc

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/pprofx/pprofx/internal/fileio/tempfile"
)

// Samples yields a profile's samples in order, as pprof.Samples: each
// one's stack (location indices, leaf first) or, when packed is set, the
// uvarints of the indices + 1, and its values. The slices may be reused.
// The writers here call it more than once: every call must yield the same
// samples.
type Samples = func(fn func(stack []int32, packed []byte, values []int64) error) error

// Each calls fn with every sample in order: its index, its stack (leaf
// first, unpacked) and its values. nloc bounds the location indices.
func Each(samples Samples, nloc int, fn func(i int, stack []int32, values []int64) error) error {
	var buf []int32
	i := 0
	return samples(func(stack []int32, packed []byte, values []int64) error {
		if packed != nil {
			buf = buf[:0]
			for len(packed) > 0 {
				v, n := binary.Uvarint(packed)
				if n <= 0 || v == 0 || v > uint64(nloc) {
					return fmt.Errorf("sample %d: bad packed location id", i)
				}
				buf = append(buf, int32(v-1))
				packed = packed[n:]
			}
			stack = buf
		} else {
			for _, l := range stack {
				if l < 0 || int(l) >= nloc {
					return fmt.Errorf("sample %d: location %d out of range", i, l)
				}
			}
		}
		err := fn(i, stack, values)
		i++
		return err
	})
}

// RunBudget is how many frames one sorted run of SortStacks holds in
// memory (4 bytes each, plus 12 bytes per stack); a variable for the tests.
var RunBudget = 2 << 20

// SortStacks calls fn with every sample's index and key, in order of the
// keys: a key is the stack's locations mapped through lmap, root first.
// The order is lexicographic, a key before its extensions, ascending or
// (desc) descending; samples with equal keys come in index order. The key
// passed to fn is reused by the next call. Before the first, sized is told
// the number of samples.
//
// Keys are sorted in runs of RunBudget frames; when there is more than one
// run, each is written to a temporary file in dir (os.TempDir() when "")
// and the runs are merged. The file is removed before SortStacks returns.
func SortStacks(samples Samples, lmap []int32, desc bool, dir string, sized func(n int), fn func(i int32, key []int32) error) (err error) {
	var r run
	var f *tempfile.File
	var bw *bufio.Writer
	var runs []int64 // start offsets in f, then its end
	var off int64
	defer func() {
		if f != nil {
			if cerr := f.Close(); err == nil && cerr != nil {
				err = cerr
			}
		}
	}()
	spillRun := func() error {
		if f == nil {
			var err error
			if f, err = tempfile.New(dir, "pprofx-stacks-*.sort"); err != nil {
				return fmt.Errorf("sorting stacks: %v", err)
			}
			bw = bufio.NewWriterSize(f, 256<<10)
		}
		runs = append(runs, off)
		r.sort(desc)
		var b []byte
		for _, k := range r.order {
			key := r.key(k)
			b = binary.AppendUvarint(b[:0], uint64(r.ids[k]))
			b = binary.AppendUvarint(b, uint64(len(key)))
			for _, x := range key {
				b = binary.AppendUvarint(b, uint64(x))
			}
			if _, err := bw.Write(b); err != nil {
				return fmt.Errorf("sorting stacks: %v", err)
			}
			off += int64(len(b))
		}
		r.reset()
		return nil
	}
	n := 0
	err = Each(samples, len(lmap), func(i int, stack []int32, _ []int64) error {
		n++
		if len(r.keys)+len(stack) > RunBudget && len(r.ids) > 0 {
			if err := spillRun(); err != nil {
				return err
			}
		}
		r.add(int32(i), stack, lmap)
		return nil
	})
	if err != nil {
		return err
	}
	sized(n)
	if f == nil {
		// One run: no file.
		r.sort(desc)
		for _, k := range r.order {
			if err := fn(r.ids[k], r.key(k)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(r.ids) > 0 {
		if err := spillRun(); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sorting stacks: %v", err)
	}
	runs = append(runs, off)
	return merge(f.File, runs, desc, fn)
}

// run is the keys of one run, back to back.
type run struct {
	keys  []int32
	offs  []int32 // per stack: start in keys; then the end
	ids   []int32
	order []int32
}

func (r *run) add(id int32, stack []int32, lmap []int32) {
	if len(r.offs) == 0 {
		r.offs = append(r.offs, 0)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		r.keys = append(r.keys, lmap[stack[i]])
	}
	r.offs = append(r.offs, int32(len(r.keys)))
	r.ids = append(r.ids, id)
}

func (r *run) key(k int32) []int32 { return r.keys[r.offs[k]:r.offs[k+1]] }

func (r *run) reset() {
	r.keys, r.offs, r.ids, r.order = r.keys[:0], r.offs[:0], r.ids[:0], r.order[:0]
}

func (r *run) sort(desc bool) {
	r.order = r.order[:0]
	for k := range r.ids {
		r.order = append(r.order, int32(k))
	}
	slices.SortFunc(r.order, func(a, b int32) int {
		c := slices.Compare(r.key(a), r.key(b))
		if desc {
			c = -c
		}
		if c == 0 {
			c = int(r.ids[a]) - int(r.ids[b])
		}
		return c
	})
}

// cursor reads one sorted run back.
type cursor struct {
	br  *bufio.Reader
	id  int32
	key []int32
	err error
}

func (c *cursor) next() bool {
	id, err := binary.ReadUvarint(c.br)
	if err == io.EOF {
		return false
	}
	n, err2 := binary.ReadUvarint(c.br)
	if err != nil || err2 != nil || n > 1<<31 {
		c.err = fmt.Errorf("sorting stacks: reading a run back: bad record")
		return false
	}
	c.id, c.key = int32(id), c.key[:0]
	for range n {
		x, err := binary.ReadUvarint(c.br)
		if err != nil {
			c.err = fmt.Errorf("sorting stacks: reading a run back: %v", err)
			return false
		}
		c.key = append(c.key, int32(x))
	}
	return true
}

type cursorHeap struct {
	cs   []*cursor
	desc bool
}

func (h *cursorHeap) Len() int { return len(h.cs) }
func (h *cursorHeap) Less(i, j int) bool {
	c := slices.Compare(h.cs[i].key, h.cs[j].key)
	if h.desc {
		c = -c
	}
	if c == 0 {
		return h.cs[i].id < h.cs[j].id
	}
	return c < 0
}
func (h *cursorHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *cursorHeap) Push(x any)    { h.cs = append(h.cs, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}

func merge(f *os.File, runs []int64, desc bool, fn func(int32, []int32) error) error {
	h := &cursorHeap{desc: desc}
	bufSize := max(4<<10, min(256<<10, (16<<20)/len(runs)))
	for k := 0; k+1 < len(runs); k++ {
		c := &cursor{br: bufio.NewReaderSize(io.NewSectionReader(f, runs[k], runs[k+1]-runs[k]), bufSize)}
		if c.next() {
			h.cs = append(h.cs, c)
		} else if c.err != nil {
			return c.err
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		c := h.cs[0]
		if err := fn(c.id, c.key); err != nil {
			return err
		}
		if c.next() {
			heap.Fix(h, 0)
		} else {
			if c.err != nil {
				return c.err
			}
			heap.Pop(h)
		}
	}
	return nil
}
