package streamenc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestSortStacks checks SortStacks against a sort in memory, ascending and
// descending, from stacks and from packed ids, in one run and in many
// spilled runs, and that no run file is left behind.
func TestSortStacks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const nloc = 6
	lmap := []int32{5, 3, 0, 1, 4, 2}
	var stacks [][]int32
	for range 2000 {
		st := make([]int32, r.IntN(5))
		for j := range st {
			st[j] = int32(r.IntN(nloc))
		}
		stacks = append(stacks, st)
	}
	samples := func(packed bool) Samples {
		return func(fn func([]int32, []byte, []int64) error) error {
			var b []byte
			for _, st := range stacks {
				if packed {
					b = b[:0]
					for _, l := range st {
						b = binary.AppendUvarint(b, uint64(l)+1)
					}
					if err := fn(nil, b, nil); err != nil {
						return err
					}
				} else if err := fn(st, nil, nil); err != nil {
					return err
				}
			}
			return nil
		}
	}
	key := func(i int32) []int32 {
		var k []int32
		for j := len(stacks[i]) - 1; j >= 0; j-- {
			k = append(k, lmap[stacks[i][j]])
		}
		return k
	}
	old := RunBudget
	defer func() { RunBudget = old }()
	for _, desc := range []bool{false, true} {
		want := make([]int32, len(stacks))
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			c := slices.Compare(key(a), key(b))
			if desc {
				c = -c
			}
			return c
		})
		for _, budget := range []int{old, 37, 0} {
			for _, packed := range []bool{false, true} {
				RunBudget = budget
				dir := t.TempDir()
				var got []int32
				sized := -1
				err := SortStacks(samples(packed), lmap, desc, dir, func(n int) { sized = n }, func(i int32, k []int32) error {
					if sized != len(stacks) {
						return fmt.Errorf("told of %d samples, not %d", sized, len(stacks))
					}
					if !slices.Equal(k, key(i)) {
						return fmt.Errorf("sample %d: key %v, want %v", i, k, key(i))
					}
					got = append(got, i)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("desc %v, runs of %d, packed %v: wrong order", desc, budget, packed)
				}
				if ents, _ := os.ReadDir(dir); len(ents) != 0 {
					t.Fatalf("left behind: %v", ents)
				}
			}
		}
	}
	// A location out of range is an error, not a panic.
	bad := func(fn func([]int32, []byte, []int64) error) error { return fn([]int32{nloc}, nil, nil) }
	if err := SortStacks(bad, lmap, false, t.TempDir(), func(int) {}, func(int32, []int32) error { return nil }); err == nil {
		t.Fatal("no error for a location out of range")
	}
}

// TestSplice checks that a spliced message has the bytes of one built
// with the new bodies in place, nested lengths included.
func TestSplice(t *testing.T) {
	msg := func(inner []byte) []byte {
		// {1: varint 5, 2: {3: "x", 4: {inner}, 4: {inner}}, 6: "y"}
		var m4 []byte
		m4 = protowire.AppendTag(m4, 3, protowire.BytesType)
		m4 = protowire.AppendString(m4, "x")
		for range 2 {
			m4 = protowire.AppendTag(m4, 4, protowire.BytesType)
			m4 = protowire.AppendBytes(m4, inner)
		}
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, 5)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, m4)
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		return protowire.AppendString(b, "y")
	}
	big := bytes.Repeat([]byte{9}, 300) // its length needs two bytes
	segs, err := Splice(msg([]byte("ab")), func(p []protowire.Number) bool {
		return slices.Equal(p, []protowire.Number{2})
	}, func(p []protowire.Number, body []byte) ([]Seg, bool) {
		if !slices.Equal(p, []protowire.Number{2, 4}) {
			return nil, false
		}
		return []Seg{{Lit: body}, {N: int64(len(big) - 2), Write: func(w io.Writer) error {
			_, err := w.Write(big[2:])
			return err
		}}}, true
	})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteSegs(&got, segs); err != nil {
		t.Fatal(err)
	}
	want := msg(append([]byte("ab"), big[2:]...))
	if !bytes.Equal(got.Bytes(), want) || Len(segs) != int64(len(want)) {
		t.Fatalf("got %x\nwant %x", got.Bytes(), want)
	}
	// A section that writes other than it claims is an error.
	if err := WriteSegs(io.Discard, []Seg{{N: 3, Write: func(w io.Writer) error { return nil }}}); err == nil {
		t.Fatal("no error for a short section")
	}
}
