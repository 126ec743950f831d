package gperftools

// resolverQueue hands the keys of new stacks, in order, to a goroutine
// that numbers their locations and spills their frames (streamer.resolve),
// beside the record loop. Small profiles, and profiles whose matches must
// often be read back from the spill, are resolved on the record loop's
// goroutine instead. Either way one goroutine resolves every stack in
// order, so the output does not depend on it.
type resolverQueue struct {
	cur         *keyBatch
	in, out     chan *keyBatch
	done        chan struct{}
	outstanding int // batches sent, not yet back
	inline      bool
	stacks      int // stacks added
	syncs       int // syncs that had to wait
	err         error
}

// keyBatch is canonical keys back to back.
type keyBatch struct {
	keys      []byte
	ends      []int
	spillFrom int // streamer.spillFrom when the batch was sent
	err       error
}

// resolveAfter is how many stacks are resolved inline before the goroutine
// starts (a variable for the tests).
var resolveAfter = 4096

const (
	// keyBatchBytes and keyBatchKeys bound a batch.
	keyBatchBytes = 128 << 10
	keyBatchKeys  = 512
	// maxBatches is how many batches may be queued.
	maxBatches = 8
	// maxSyncs is how many waits for the goroutine are allowed before
	// the rest is resolved inline (each wait drains the pipeline).
	maxSyncs = 256
)

func (q *resolverQueue) add(s *streamer, key []byte) error {
	q.stacks++
	if q.err != nil {
		return q.err
	}
	if q.in == nil && (q.inline || q.stacks <= resolveAfter) {
		q.err = s.resolve(key, s.spillFrom)
		return q.err
	}
	if q.in == nil {
		q.start(s)
	}
	b := q.cur
	b.keys = append(b.keys, key...)
	b.ends = append(b.ends, len(b.keys))
	if len(b.ends) >= keyBatchKeys || len(b.keys) >= keyBatchBytes {
		return q.send(s)
	}
	return nil
}

func (q *resolverQueue) start(s *streamer) {
	q.in = make(chan *keyBatch, maxBatches)
	q.out = make(chan *keyBatch, maxBatches+1)
	q.done = make(chan struct{})
	q.cur = &keyBatch{}
	go func() {
		defer close(q.done)
		for b := range q.in {
			if b.err == nil {
				start := 0
				for _, end := range b.ends {
					if b.err = s.resolve(b.keys[start:end], b.spillFrom); b.err != nil {
						break
					}
					start = end
				}
			}
			q.out <- b
		}
	}()
}

// send queues the current batch and takes a free one.
func (q *resolverQueue) send(s *streamer) error {
	q.cur.spillFrom = s.spillFrom
	q.in <- q.cur
	q.outstanding++
	var next *keyBatch
	if q.outstanding >= maxBatches {
		next = q.recv()
	} else {
		select {
		case next = <-q.out:
			q.outstanding--
			q.note(next)
		default:
			next = &keyBatch{}
		}
	}
	next.keys, next.ends = next.keys[:0], next.ends[:0]
	q.cur = next
	return q.err
}

func (q *resolverQueue) recv() *keyBatch {
	b := <-q.out
	q.outstanding--
	q.note(b)
	return b
}

func (q *resolverQueue) note(b *keyBatch) {
	if b.err != nil && q.err == nil {
		q.err = b.err
	}
	b.err = nil
}

// sync returns once every stack added so far is resolved, with the first
// error of resolving them. Until the next add, the spill and the locations
// may be read.
func (q *resolverQueue) sync(s *streamer) error {
	if q.in == nil {
		return q.err
	}
	if len(q.cur.ends) > 0 {
		q.cur.spillFrom = s.spillFrom
		q.in <- q.cur
		q.outstanding++
		q.cur = &keyBatch{}
	}
	for q.outstanding > 0 {
		q.recv()
	}
	if q.syncs++; q.syncs > maxSyncs {
		q.stop()
		q.inline = true
	}
	return q.err
}

// stop ends the goroutine, if any, dropping what it has not resolved.
func (q *resolverQueue) stop() {
	if q.in == nil {
		return
	}
	close(q.in)
	for q.outstanding > 0 {
		q.recv()
	}
	<-q.done
	q.in = nil
}
