package symbolize

import (
	"bytes"
	"math/rand"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestMutatedBinaries reads binaries with random bytes changed, each within
// a time limit: mutation 1908 of cprog (seed 2) once made the standard
// DWARF reader return empty entries forever (see next in dwarfread/dwarf.go).
func TestMutatedBinaries(t *testing.T) {
	n := map[string]int{"bin/cprog": 1910, "bin/cprog-s390x": 300, "stripped/cprog.debug": 300}
	for _, fn := range []string{"bin/cprog", "bin/cprog-s390x", "stripped/cprog.debug"} {
		orig, err := os.ReadFile("../../testdata/symbolize/" + fn)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(2))
		for i := 0; i < n[fn]; i++ {
			d := append([]byte(nil), orig...)
			for k := 0; k < 1+r.Intn(30); k++ {
				switch r.Intn(3) {
				case 0:
					d[r.Intn(len(d))] = byte(r.Intn(256))
				case 1:
					d[r.Intn(len(d))] = 0xff
				case 2:
					d[r.Intn(len(d))] = 0
				}
			}
			done := make(chan bool)
			go func() {
				b, err := newBinary(bytes.NewReader(d), int64(len(d)))
				if err == nil {
					tb := b.loadTables(nil)
					var addrs []uint64
					for _, p := range b.loads {
						addrs = append(addrs, p.Vaddr, p.Vaddr+p.Filesz/2)
					}
					_, _, _ = tb.lookup(sortedDistinct(addrs))
				}
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				buf := make([]byte, 1<<20)
				t.Fatalf("%s mutation %d: still reading after 20s:\n%s", fn, i, buf[:runtime.Stack(buf, true)])
			}
		}
	}
}
