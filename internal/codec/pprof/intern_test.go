package pprof

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// internProfile: a string table of "", n copies of "a", then "main";
// every reference goes through an index into the copies.
func internProfile(n int, fnName uint64) []byte {
	msg := func(b []byte, num protowire.Number, body []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), body)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	var b []byte
	b = msg(b, fStringTable, nil)
	for range n {
		b = msg(b, fStringTable, []byte("a"))
	}
	mainIdx := uint64(n + 1)
	b = msg(b, fStringTable, []byte("main"))
	b = msg(b, fSampleType, varint(varint(nil, 1, 7), 2, mainIdx))
	b = msg(b, fFunction, varint(varint(nil, 1, 1), 2, fnName))
	b = msg(b, fLocation, varint(msg(nil, 4, varint(nil, 1, 1)), 1, 1))
	b = msg(b, fSample, varint(varint(nil, 1, 1), 2, 5))
	b = varint(b, fComment, uint64(n/2))
	return b
}

// TestInternedStrings: a table of many short strings keeps each distinct
// string once and every reference resolves to the same text.
func TestInternedStrings(t *testing.T) {
	const n = 200_000
	data := internProfile(n, n/3)
	p, err := DecodeRaw(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Strings, ","); got != ",a,main" {
		t.Fatalf("strings %q, want \"\", a, main", got)
	}
	if got := p.String(p.Functions[0].Name); got != "a" {
		t.Errorf("function name %q, want a", got)
	}
	if got := p.String(p.SampleTypes[0].Type) + "/" + p.String(p.SampleTypes[0].Unit); got != "a/main" {
		t.Errorf("sample type %q, want a/main", got)
	}
	if len(p.Comments) != 1 || p.String(p.Comments[0]) != "a" {
		t.Errorf("comments %v, want one: a", p.Comments)
	}
	// 16 bytes of header per entry would be 3.2 MB; interned, the remap's
	// 0.8 MB (dropped after decoding) and a few strings.
	if alloc, over := memcheck.Over(3*uint64(len(data))+1<<20, func() { DecodeRaw(data) }); over {
		t.Errorf("decoding %d bytes allocated %d", len(data), alloc)
	}
	// An index past the table is still refused, by its own number.
	if _, err := DecodeRaw(internProfile(n, 5*n)); err == nil || !strings.Contains(err.Error(), "1000000") {
		t.Errorf("function name %d of %d strings: err %v", 5*n, n+2, err)
	}
}

// TestDistinctStringsKept: short strings that are mostly distinct are
// kept index for index, as they are, the few equal ones too.
func TestDistinctStringsKept(t *testing.T) {
	var b []byte
	b = protowire.AppendBytes(protowire.AppendTag(b, fStringTable, protowire.BytesType), nil)
	const n = 100_000
	for i := range n {
		s := []byte{byte('a' + i%26), byte('a' + i/26%26), byte('a' + i/676%26), byte('a' + i/17576%26)}
		if i%10 == 0 {
			s = []byte("same")
		}
		b = protowire.AppendBytes(protowire.AppendTag(b, fStringTable, protowire.BytesType), s)
	}
	p, err := DecodeRaw(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Strings) != n+1 || p.Strings[1] != "same" || p.Strings[11] != "same" || p.Strings[n] != "dyrf" {
		t.Errorf("%d strings, [1] %q, [%d] %q", len(p.Strings), p.Strings[1], n, p.Strings[n])
	}
}
