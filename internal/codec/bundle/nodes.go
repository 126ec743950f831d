package bundle

import "slices"

// nodeTable is the reader's stack prefix tree, in the order the bundle
// lists it (preorder): node 0 is the empty stack, and node i > 0 is the
// stack of parent(i) with one more frame, location loc[i], on the leaf
// end. A node that is its parent's first child directly follows it, as
// most nodes do: those keep no parent (first marks them), and only the
// others' are listed. A chain of frames so takes 4 bytes and a
// bit a node.
type nodeTable struct {
	loc   []uint32
	first bitset // node i's parent is node i-1
	// The other nodes' parents, by the node's rank among them.
	otherParent []uint32
	// The nodes sample rows end at, numbered in node order (end).
	ends  bitset
	nends int
}

func (t *nodeTable) len() int { return len(t.loc) }

func (t *nodeTable) parent(i uint32) uint32 {
	if t.first.has(i) {
		return i - 1
	}
	// The nodes below i not marked first are node 0 and the listed ones.
	return t.otherParent[int(i)-t.first.rank(i)-1]
}

// markEnds notes the nodes rows end at, for end to number them.
func (t *nodeTable) markEnds(rowNode []uint32) {
	t.ends.grow(len(t.loc))
	for _, n := range rowNode {
		t.ends.set(n)
	}
	t.nends = t.ends.index()
}

// end returns the number of node n, which a row ends at, among those
// nodes: 0 to nends-1.
func (t *nodeTable) end(n uint32) int { return t.ends.rank(n) }

// decode reads n stack nodes, whose locations are below nl: the number
// of children of every node in preorder, root included, then each node's
// location, as is for a first child, else as the distance from its
// previous sibling's minus one (tables.writeNodes).
func (t *nodeTable) decode(d *dec, n, nl int) bool {
	// The children counts are read twice, to check the tree they make and
	// then beside the locations: they are never held in memory. Each pass
	// keeps a stack of the nodes still owed children (a chain of nodes
	// keeps one entry), and a node's children follow it.
	countsAt := d.off
	type open struct{ node, left, last uint32 } // last: last child's location + 1
	var stack []open
	var total uint64
	broken := 0 // the first node with no parent left
	for i := 0; i <= n; i++ {
		c := d.u32("stack_node.children")
		if d.err != nil {
			return false
		}
		total += uint64(c)
		if i > 0 && broken == 0 {
			if len(stack) == 0 {
				broken = i
			} else if top := &stack[len(stack)-1]; top.left == 1 {
				stack = stack[:len(stack)-1]
			} else {
				top.left--
			}
		}
		if c > 0 && broken == 0 {
			stack = append(stack, open{left: c})
		}
	}
	if total != uint64(n) {
		d.fail("stack_node.children", "%d children for %d nodes", total, n)
		return false
	}
	if broken != 0 {
		d.fail("stack_node.children", "node %d has no parent left", broken)
		return false
	}

	t.loc = make([]uint32, n+1)
	t.first.grow(n + 1)
	kids := dec{b: d.b, off: countsAt, block: d.block}
	stack = append(stack[:0], open{node: 0, left: kids.u32("stack_node.children")})
	for i := 1; i <= n; i++ {
		top := &stack[len(stack)-1]
		v := d.uvarint("stack_node.location")
		l := v
		if top.last > 0 {
			l = uint64(top.last) + v
		}
		if d.err == nil && (v >= uint64(nl) || l >= uint64(nl)) {
			d.fail("stack_node.location", "node %d: location %d out of range (%d locations)", i, l, nl)
		}
		if d.err != nil {
			return false
		}
		t.loc[i] = uint32(l)
		if p := top.node; p == uint32(i-1) {
			t.first.set(uint32(i))
		} else {
			t.otherParent = append(t.otherParent, p)
		}
		top.last = uint32(l) + 1
		if top.left--; top.left == 0 {
			stack = stack[:len(stack)-1]
		}
		if c := kids.u32("stack_node.children"); c > 0 {
			stack = append(stack, open{node: uint32(i), left: c})
		}
	}
	t.otherParent = slices.Clip(t.otherParent)
	t.first.index()
	return true
}
