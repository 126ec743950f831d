// Package mergekey holds the keys by which google/pprof's profile.Merge
// takes two entries of its inputs for one, for the transforms that merge
// on the model as it does (sum, diff).
package mergekey

// Mapping is profile.Merge's key of a mapping: its size rounded up to
// 4 KiB, its offset, and its build id, or else its file.
type Mapping struct {
	Size, Offset uint64
	ID           string
}

// MappingOf returns the key of the mapping [start, limit) at offset in
// its file, with that build id and file name.
func MappingOf(start, limit, offset uint64, buildID, file string) Mapping {
	const rounding = 0x1000
	size := limit - start
	size = size + rounding - 1
	size -= size % rounding
	k := Mapping{Size: size, Offset: offset}
	switch {
	case buildID != "":
		k.ID = buildID
	case file != "":
		k.ID = file
	}
	return k
}
