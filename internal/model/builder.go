package model

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"

	"github.com/pprofx/pprofx/internal/hashindex"
)

// Builder fills a Profile while keeping its tables free of duplicates:
// strings, stacks and label sets added through it are stored once.
// Decoders of formats without tables of their own (gperftools) or with
// tables that must be rebuilt (OTLP attributes) use it.
//
// Strings and stacks are found by an index of their entry numbers
// (hashindex), which holds 8 to 16 bytes an entry, where a map keyed by
// a string holds about 40 to 80, and one of a stack's hash to the stacks
// of that hash more.
type Builder struct {
	P *Profile

	seed      maphash.Seed
	strings   hashindex.Index
	stacks    hashindex.Index
	labelSets hashindex.Index
	keyBuf    []byte
	attrBuf   []byte
	frameBuf  []int32
	// New label sets' labels are cut from this array, made a few
	// thousand at a time: a perf script's samples each have a set of
	// their own.
	labelSlab []Label
}

// NewBuilder returns a Builder over a new empty profile.
func NewBuilder() *Builder {
	return BuilderFor(New())
}

// BuilderFor returns a Builder that adds to p, indexing what p already holds.
func BuilderFor(p *Profile) *Builder {
	if len(p.Strings) == 0 {
		p.Strings = []string{""}
	}
	if len(p.LabelSets) == 0 {
		p.LabelSets = []LabelSet{{}}
	}
	b := &Builder{
		P:    p,
		seed: maphash.MakeSeed(),
	}
	// A string or stack the profile holds twice is found as its first.
	b.strings.Reserve(len(p.Strings))
	b.stacks.Reserve(p.Stacks.Len())
	for i, s := range p.Strings {
		if _, slot, ok := b.findString(s); !ok {
			b.strings.Add(slot, uint32(i), b.rehashString)
		}
	}
	var frames []int32
	for i := 0; i < p.Stacks.Len(); i++ {
		frames = p.Stacks.Append(frames[:0], i)
		if _, slot, ok := b.findStack(frames); !ok {
			b.stacks.Add(slot, uint32(i), b.rehashStack)
		}
	}
	b.labelSets.Reserve(len(p.LabelSets) - 1)
	for i, ls := range p.LabelSets[1:] {
		if _, slot, ok := b.findLabelSet(ls.Labels(), ls.Attributes()); !ok {
			b.labelSets.Add(slot, uint32(i+1), b.rehashLabelSet)
		}
	}
	return b
}

// String returns the index of s in the string table, adding it if needed.
func (b *Builder) String(s string) int32 {
	i, slot, ok := b.findString(s)
	if !ok {
		i = uint32(len(b.P.Strings))
		b.P.Strings = append(b.P.Strings, s)
		b.strings.Add(slot, i, b.rehashString)
	}
	return int32(i)
}

// StringCopy is String for an s that aliases memory reused later: a new
// string is stored as a copy.
func (b *Builder) StringCopy(s string) int32 {
	i, slot, ok := b.findString(s)
	if !ok {
		i = uint32(len(b.P.Strings))
		b.P.Strings = append(b.P.Strings, strings.Clone(s))
		b.strings.Add(slot, i, b.rehashString)
	}
	return int32(i)
}

// Lookup returns the index of the string s holds in the string table,
// and true; or false when the table has no such string. It adds nothing.
func (b *Builder) Lookup(s []byte) (int32, bool) {
	i, _, ok := b.strings.Find(maphash.Bytes(b.seed, s), func(v uint32) bool { return b.P.Strings[v] == string(s) })
	return int32(i), ok
}

func (b *Builder) findString(s string) (uint32, int, bool) {
	return b.strings.Find(maphash.String(b.seed, s), func(v uint32) bool { return b.P.Strings[v] == s })
}

func (b *Builder) rehashString(v uint32) uint64 { return maphash.String(b.seed, b.P.Strings[v]) }

func (b *Builder) hashStack(frames []int32) uint64 { return HashFrames(b.seed, frames) }

// HashFrames hashes frames as they lie in memory, without a copy: a stack
// may have millions of frames. The same frames hash the same in one
// process.
func HashFrames(seed maphash.Seed, frames []int32) uint64 {
	return maphash.Bytes(seed, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(frames))), 4*len(frames)))
}

func (b *Builder) findStack(frames []int32) (uint32, int, bool) {
	return b.stacks.Find(b.hashStack(frames), func(v uint32) bool { return b.P.Stacks.Equal(int(v), frames) })
}

func (b *Builder) rehashStack(v uint32) uint64 {
	b.frameBuf = b.P.Stacks.Append(b.frameBuf[:0], int(v))
	return b.hashStack(b.frameBuf)
}

// Stack returns the index of the stack with these frames (leaf first),
// adding it if it is not in the table yet. frames is copied.
func (b *Builder) Stack(frames []int32) int32 {
	i, slot, ok := b.findStack(frames)
	if !ok {
		i = uint32(b.P.Stacks.Add(frames))
		b.stacks.Add(slot, i, b.rehashStack)
	}
	return int32(i)
}

func (b *Builder) labelKey(ls []Label, as []Attribute) []byte {
	k := b.keyBuf[:0]
	for _, l := range ls {
		k = binary.AppendVarint(k, int64(l.Key))
		k = binary.AppendVarint(k, int64(l.Str))
		k = binary.AppendVarint(k, l.Num)
		k = binary.AppendVarint(k, int64(l.NumUnit))
	}
	if len(as) > 0 {
		// A label's key is never negative: the attributes cannot be
		// taken for labels.
		k = binary.AppendVarint(k, -1)
		k = AppendAttributesKey(k, as)
	}
	b.keyBuf = k
	return k
}

// findLabelSet finds the label set of these labels and attributes, by
// an index of the sets' numbers (an empty set is not in it).
func (b *Builder) findLabelSet(labels []Label, attrs []Attribute) (uint32, int, bool) {
	h := maphash.Bytes(b.seed, b.labelKey(labels, attrs))
	var ak []byte
	if len(attrs) > 0 {
		ak = AppendAttributesKey(b.attrBuf[:0], attrs)
		b.attrBuf = ak
	}
	return b.labelSets.Find(h, func(v uint32) bool {
		ls := &b.P.LabelSets[v]
		if !slices.Equal(ls.Labels(), labels) || len(ls.Attributes()) != len(attrs) {
			return false
		}
		return len(attrs) == 0 || bytes.Equal(AppendAttributesKey(b.keyBuf[:0], ls.Attributes()), ak)
	})
}

func (b *Builder) rehashLabelSet(v uint32) uint64 {
	ls := &b.P.LabelSets[v]
	return maphash.Bytes(b.seed, b.labelKey(ls.Labels(), ls.Attributes()))
}

// LabelSet returns the index of the label set holding exactly these labels
// in this order, adding it if needed. An empty set is index 0. labels is copied.
func (b *Builder) LabelSet(labels []Label) int32 {
	return b.LabelSetWith(labels, nil)
}

// LabelSetWith returns the index of the label set holding exactly these
// labels and attributes in this order, adding it if needed. Both are
// copied (the attributes' values are shared).
func (b *Builder) LabelSetWith(labels []Label, attrs []Attribute) int32 {
	if len(labels) == 0 && len(attrs) == 0 {
		return 0
	}
	i, slot, ok := b.findLabelSet(labels, attrs)
	if ok {
		return int32(i)
	}
	i = uint32(len(b.P.LabelSets))
	var ls LabelSet
	if len(labels) > 0 {
		if cap(b.labelSlab)-len(b.labelSlab) < len(labels) {
			b.labelSlab = make([]Label, 0, max(4096, len(labels)))
		}
		n := len(b.labelSlab)
		b.labelSlab = append(b.labelSlab, labels...)
		ls.SetLabels(b.labelSlab[n : n+len(labels) : n+len(labels)])
	}
	if len(attrs) > 0 {
		ls.SetAttributes(append([]Attribute(nil), attrs...))
	}
	b.P.LabelSets = append(b.P.LabelSets, ls)
	b.labelSets.Add(slot, i, b.rehashLabelSet)
	return int32(i)
}
