package dwarfread

import (
	"debug/dwarf"
	"sync"

	"github.com/pprofx/pprofx/internal/symbolize/catch"
)

// pipelineUnits says whether lazyDWARF walks the units it reads while it
// inflates the ones after them (TestPipelineMatchesSequential turns it
// off to compare).
var pipelineUnits = true

// unitWalker walks, on a goroutine of its own, the units lazyDWARF reads,
// each as soon as its bytes are inflated, while lazyDWARF inflates on: on
// a debug file whose units lie far into a compressed .debug_info (libc's
// for cprog.prof: six units, the last at 68 % of its 5.8 MB), the units
// and their line tables are walked meanwhile, not after it.
//
// Each unit is read through a reader of its own, over its bytes alone: a
// reference out of it (a unit whose abbreviations use DW_FORM_ref_addr
// is not walked here at all) ends the walk with errFull, and lookup then
// walks every unit again, as it does without the walker. The walker uses
// the other sections only once the goroutine reading them ahead is done,
// and alone after that, until stop returns; it reads a unit's bytes only
// after lazyDWARF has stored them and sent it.
type unitWalker struct {
	ready   chan unitHeader
	done    chan struct{}
	once    sync.Once
	out     [][]Frame // the answers, as lookup gives them
	err     error     // the walk's error (errFull included): out is then not used
	lineErr error
}

// startWalker starts walking the units sent on ready (at most n) for
// addrs, once ahead is done (aheadErr: what it met). tableFor gives the
// table to walk a unit with.
func startWalker(addrs []uint64, n int, ahead *sync.WaitGroup, aheadErr *error, tableFor func(u unitHeader) (*Table, error)) *unitWalker {
	w := &unitWalker{ready: make(chan unitHeader, n), done: make(chan struct{}), out: make([][]Frame, len(addrs))}
	go func() {
		defer close(w.done)
		// After an error, what is still sent is received and dropped.
		defer func() {
			for range w.ready {
			}
		}()
		defer catch.Recover(&w.err)
		ahead.Wait()
		if *aheadErr != nil {
			w.err = *aheadErr
			return
		}
		for u := range w.ready {
			t, err := tableFor(u)
			if err != nil {
				w.err = err
				return
			}
			r := t.d.Reader()
			r.Seek(dwarf.Offset(t.units[0].die))
			var wk walk
			e, err := next(r, &wk)
			if err != nil {
				w.err = err
				return
			}
			if e == nil {
				continue
			}
			if err := t.visit(r, e, &wk, addrs, w.out); err != nil {
				w.err = err
				return
			}
			if t.bail != nil {
				w.err = t.bail
				return
			}
			if w.lineErr == nil {
				w.lineErr = t.lineErr
			}
		}
	}()
	return w
}

// stop says no more units come, and waits for the walk to end.
func (w *unitWalker) stop() {
	w.once.Do(func() { close(w.ready) })
	<-w.done
}
