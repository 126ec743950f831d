package symbolize

import (
	"fmt"
	"testing"
)

func TestZZDebug(t *testing.T) {
	b, err := openBinary("/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug")
	if err != nil {
		t.Skip(err)
	}
	addrs := []uint64{0x3ad40, 0x843c0, 0x85e40, 0x9a360, 0x175910}
	dw, err := b.lazyDWARF(addrs)
	fmt.Println("lazy err", err)
	if err == nil {
		out := make([][]frame, len(addrs))
		fmt.Println("lookup err", dw.lookup(addrs, out))
		for i := range out {
			fmt.Printf("%#x lazy %+v\n", addrs[i], out[i])
		}
	}
	d, secs, err := b.readDWARF()
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]frame, len(addrs))
	fmt.Println("whole lookup err", newDwarfTable(d, lineNamesOf(secs, b.ef.ByteOrder)).lookup(addrs, out))
	for i := range out {
		fmt.Printf("%#x whole %+v\n", addrs[i], out[i])
	}
}
