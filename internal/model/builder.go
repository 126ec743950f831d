package model

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
)

// Builder fills a Profile while keeping its tables free of duplicates:
// strings, stacks and label sets added through it are stored once.
// Decoders of formats without tables of their own (gperftools) or with
// tables that must be rebuilt (OTLP attributes) use it.
type Builder struct {
	P *Profile

	strings   map[string]int32
	seed      maphash.Seed
	stacks    map[uint64][]int32 // hash -> candidate stack indices
	labelSets map[string]int32
	keyBuf    []byte
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
		P:         p,
		strings:   make(map[string]int32, len(p.Strings)),
		seed:      maphash.MakeSeed(),
		stacks:    make(map[uint64][]int32, p.Stacks.Len()),
		labelSets: make(map[string]int32, len(p.LabelSets)),
	}
	for i, s := range p.Strings {
		if _, ok := b.strings[s]; !ok {
			b.strings[s] = int32(i)
		}
	}
	var frames []int32
	for i := 0; i < p.Stacks.Len(); i++ {
		frames = p.Stacks.Append(frames[:0], i)
		h := b.hashStack(frames)
		b.stacks[h] = append(b.stacks[h], int32(i))
	}
	for i, ls := range p.LabelSets {
		k := string(b.labelKey(ls.Labels, ls.Attributes))
		if _, ok := b.labelSets[k]; !ok {
			b.labelSets[k] = int32(i)
		}
	}
	return b
}

// String returns the index of s in the string table, adding it if needed.
func (b *Builder) String(s string) int32 {
	if i, ok := b.strings[s]; ok {
		return i
	}
	i := int32(len(b.P.Strings))
	b.P.Strings = append(b.P.Strings, s)
	b.strings[s] = i
	return i
}

// StringCopy is String for an s that aliases memory reused later: a new
// string is stored as a copy.
func (b *Builder) StringCopy(s string) int32 {
	if i, ok := b.strings[s]; ok {
		return i
	}
	s = strings.Clone(s)
	i := int32(len(b.P.Strings))
	b.P.Strings = append(b.P.Strings, s)
	b.strings[s] = i
	return i
}

func (b *Builder) hashStack(frames []int32) uint64 {
	k := b.keyBuf[:0]
	for _, f := range frames {
		k = binary.LittleEndian.AppendUint32(k, uint32(f))
	}
	b.keyBuf = k
	return maphash.Bytes(b.seed, k)
}

// Stack returns the index of the stack with these frames (leaf first),
// adding it if it is not in the table yet. frames is copied.
func (b *Builder) Stack(frames []int32) int32 {
	h := b.hashStack(frames)
	for _, i := range b.stacks[h] {
		if b.P.Stacks.Equal(int(i), frames) {
			return i
		}
	}
	i := b.P.Stacks.Add(frames)
	b.stacks[h] = append(b.stacks[h], i)
	return i
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
	k := b.labelKey(labels, attrs)
	if i, ok := b.labelSets[string(k)]; ok {
		return i
	}
	i := int32(len(b.P.LabelSets))
	ls := LabelSet{Labels: append([]Label(nil), labels...)}
	if len(attrs) > 0 {
		ls.Attributes = append([]Attribute(nil), attrs...)
	}
	b.P.LabelSets = append(b.P.LabelSets, ls)
	b.labelSets[string(k)] = i
	return i
}
