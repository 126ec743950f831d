//go:build !unix

package formats

func newChunk(n int) ([]byte, bool) { return make([]byte, 0, n), false }

func freeChunk([]byte) {}
