package jfr

// kind is a pair of sample types that one or more event types become.
type kind int

// The kinds, in the order their sample types appear in a profile.
const (
	kCPU kind = iota
	kWall
	kAllocSample
	kAllocNewTLAB
	kAllocOutsideTLAB
	kLock
	kLive
	kMalloc
	numKinds
)

// sampleTypes names each kind's two sample types: a count and a measure.
var sampleTypes = [numKinds][2][2]string{
	kCPU:              {{"samples", "count"}, {"cpu", "nanoseconds"}},
	kWall:             {{"wall_samples", "count"}, {"wall", "nanoseconds"}},
	kAllocSample:      {{"alloc_objects", "count"}, {"alloc_space", "bytes"}},
	kAllocNewTLAB:     {{"alloc_in_new_tlab_objects", "count"}, {"alloc_in_new_tlab_bytes", "bytes"}},
	kAllocOutsideTLAB: {{"alloc_outside_tlab_objects", "count"}, {"alloc_outside_tlab_bytes", "bytes"}},
	kLock:             {{"contentions", "count"}, {"delay", "nanoseconds"}},
	kLive:             {{"inuse_objects", "count"}, {"inuse_space", "bytes"}},
	kMalloc:           {{"malloc_objects", "count"}, {"malloc_bytes", "bytes"}},
}
