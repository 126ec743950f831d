//go:build !linux

package symbolize

func hugeBuffer(n int) []byte { return make([]byte, n) }
