package bundle

import (
	"cmp"
	"math/bits"
	"slices"
)

// prefixTree is the writer's tree of the stacks added: node 0 is the
// empty stack, and node n > 0 is the stack of its parent with one more
// frame, location loc[n], on the leaf end.
//
// A node added as a child of the node added just before it, as each frame
// of a stack's new part is, keeps no parent: its parent is n-1 (it is
// implicit). Only the other nodes, marked in explicit, are indexed, by
// parent and location. A chain of new frames so takes 4 bytes and a bit a
// frame, where a parent, a first child and a location took 12.
type prefixTree struct {
	loc      column
	explicit bitset            // node n's parent is not n-1; node 0 is marked
	index    map[uint64]uint32 // parent<<32 | location -> explicit node
}

func newPrefixTree() *prefixTree {
	t := &prefixTree{index: map[uint64]uint32{}}
	t.loc.append(0)
	t.explicit.append(true)
	return t
}

func (t *prefixTree) len() int { return t.loc.len() }

// implicitChild returns node n's implicit child, n+1, if it has one.
func (t *prefixTree) implicitChild(n uint32) (uint32, bool) {
	c := n + 1
	return c, int(c) < t.loc.len() && !t.explicit.has(c)
}

// child returns the child of node with location loc, adding it if there
// is none.
func (t *prefixTree) child(node, loc uint32) uint32 {
	if c, ok := t.implicitChild(node); ok && t.loc.at(c) == loc {
		return c
	}
	k := uint64(node)<<32 | uint64(loc)
	if c, ok := t.index[k]; ok {
		return c
	}
	n := uint32(t.loc.len())
	t.loc.append(loc)
	if node == n-1 {
		t.explicit.append(false)
	} else {
		t.explicit.append(true)
		t.index[k] = n
	}
	return n
}

// treeOrder is a prefix tree's children in the order they are written:
// each node's by its location's new index. A node without an explicit
// child has at most one, its implicit child; the others' lists are
// kids[off[i]:off[i+1]], i being the node's rank in many.
type treeOrder struct {
	tree   *prefixTree
	many   bitset // node n has an explicit child
	off    []uint32
	kids   []uint32
	locNew []uint32
	one    [1]uint32
	isRow  bitset   // the nodes sample rows end at
	rows   []uint32 // their new indices, by rank in isRow
}

// order lists the children of every node with an explicit child, its
// implicit child among them, in order of their locations' new indices,
// and drops the tree's index, which only adding needs.
func (t *prefixTree) order(locNew []uint32) *treeOrder {
	o := &treeOrder{tree: t, locNew: locNew}
	edges := make([]uint64, 0, len(t.index)) // parent<<32 | child
	for k, c := range t.index {
		edges = append(edges, k>>32<<32|uint64(c))
	}
	t.index = nil
	slices.Sort(edges)
	o.many.grow(t.len())
	for i := 0; i < len(edges); {
		p := uint32(edges[i] >> 32)
		o.many.set(p)
		o.off = append(o.off, uint32(len(o.kids)))
		start := len(o.kids)
		if c, ok := t.implicitChild(p); ok {
			o.kids = append(o.kids, c)
		}
		for ; i < len(edges) && uint32(edges[i]>>32) == p; i++ {
			o.kids = append(o.kids, uint32(edges[i]))
		}
		slices.SortFunc(o.kids[start:], func(a, b uint32) int {
			return cmp.Compare(locNew[t.loc.at(a)], locNew[t.loc.at(b)])
		})
	}
	o.off = append(o.off, uint32(len(o.kids)))
	o.many.index()
	return o
}

// children returns node n's children in order. The slice is valid until
// the next call.
func (o *treeOrder) children(n uint32) []uint32 {
	if o.many.has(n) {
		i := o.many.rank(n)
		return o.kids[o.off[i]:o.off[i+1]]
	}
	if c, ok := o.tree.implicitChild(n); ok {
		o.one[0] = c
		return o.one[:]
	}
	return nil
}

// markRows notes the nodes rows end at, whose new indices the rows' encoding
// needs (newRow).
func (o *treeOrder) markRows(nodes []uint32) {
	o.isRow.grow(o.tree.len())
	for _, n := range nodes {
		o.isRow.set(n)
	}
	o.rows = make([]uint32, o.isRow.index())
}

// numbered records that node n is written as the next'th node.
func (o *treeOrder) numbered(n, next uint32) {
	if o.isRow.has(n) {
		o.rows[o.isRow.rank(n)] = next
	}
}

// newRow returns the index node n, which a row ends at, is written as.
func (o *treeOrder) newRow(n uint32) uint32 {
	return o.rows[o.isRow.rank(n)]
}

// bitset is a set of small integers. It grows by grow, or by append,
// which adds the next integer of those appended so far. Once it is
// complete, index lets rank number its members in order.
type bitset struct {
	w     []uint64
	n     uint32   // integers appended
	ranks []uint32 // members before each word of w (index)
}

// index counts the members before each word, for rank, and returns
// their number.
func (b *bitset) index() int {
	b.ranks = make([]uint32, len(b.w))
	c := 0
	for i, w := range b.w {
		b.ranks[i] = uint32(c)
		c += bits.OnesCount64(w)
	}
	return c
}

// rank returns the number of members below i (after index).
func (b *bitset) rank(i uint32) int {
	return int(b.ranks[i>>6]) + bits.OnesCount64(b.w[i>>6]&(1<<(i&63)-1))
}

func (b *bitset) has(i uint32) bool {
	return int(i>>6) < len(b.w) && b.w[i>>6]&(1<<(i&63)) != 0
}

func (b *bitset) set(i uint32) { b.w[i>>6] |= 1 << (i & 63) }

// grow makes room for n members.
func (b *bitset) grow(n int) {
	if w := (n + 63) / 64; w > len(b.w) {
		b.w = append(b.w, make([]uint64, w-len(b.w))...)
	}
}

// append adds the next integer, as a member if v.
func (b *bitset) append(v bool) {
	if int(b.n>>6) >= len(b.w) {
		b.w = append(b.w, 0)
	}
	if v {
		b.set(b.n)
	}
	b.n++
}
