// Command gengo writes the Go runtime/pprof fixtures under testdata/go:
// real profiles from Go's own profiler, small enough to commit.
//
//	go run ./internal/tools/gengo -o testdata/go
//	go run ./internal/tools/gengo -o testdata/go -only threadcreate
//
// Each run gives different (real) samples; the files are regenerated only
// when the fixtures need to change.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"
)

var sink any

func hashWork(n int) {
	var sum [32]byte
	for i := 0; i < n; i++ {
		sum = sha256.Sum256(sum[:])
	}
	sink = sum
}

func jsonWork(n int) {
	type rec struct {
		Name  string
		Vals  []int
		Inner map[string]string
	}
	for i := 0; i < n; i++ {
		b, _ := json.Marshal(rec{Name: fmt.Sprint("r", i), Vals: []int{i, i * 2, i * 3}, Inner: map[string]string{"a": "b"}})
		var r rec
		_ = json.Unmarshal(b, &r)
		sink = r
	}
}

func sortWork(n int) {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = (i * 7919) % n
	}
	sort.Ints(xs)
	sink = xs
}

var re = regexp.MustCompile(`(\w+)@(\w+)\.com`)

func regexpWork(n int) {
	for i := 0; i < n; i++ {
		sink = re.FindAllStringSubmatch("mail alice@example.com and bob@test.com now", -1)
	}
}

// alloc keeps some memory live so the heap profile has in-use samples.
var live [][]byte

func allocWork(n int) {
	for i := 0; i < n; i++ {
		b := make([]byte, 512+i%4096)
		if i%8 == 0 {
			live = append(live, b)
		}
	}
}

func busy(d time.Duration, f func()) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		f()
	}
}

func cpuProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		pprof.Do(context.Background(), pprof.Labels("workload", "hash", "tenant", "a"), func(context.Context) {
			busy(400*time.Millisecond, func() { hashWork(1000) })
		})
		pprof.Do(context.Background(), pprof.Labels("workload", "json"), func(context.Context) {
			busy(300*time.Millisecond, func() { jsonWork(100) })
		})
	}()
	go func() {
		defer wg.Done()
		busy(300*time.Millisecond, func() { sortWork(10000) })
		pprof.Do(context.Background(), pprof.Labels("workload", "regexp"), func(context.Context) {
			busy(300*time.Millisecond, func() { regexpWork(100) })
		})
	}()
	wg.Wait()
	pprof.StopCPUProfile()
	return f.Close()
}

func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		return err
	}
	return f.Close()
}

func contention() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	ch := make(chan int)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				mu.Lock()
				hashWork(20)
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 50; i++ {
			time.Sleep(100 * time.Microsecond)
			ch <- i
		}
		close(ch)
	}()
	for range ch {
	}
	wg.Wait()
}

func main() {
	out := flag.String("o", "testdata/go", "output directory")
	only := flag.String("only", "", "write only this profile (threadcreate)")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	// The threadcreate profile: one sample per OS thread the runtime made.
	// Go 1.26 writes each with the same single location: address
	// 0xffffffffffffffff, no mapping, one line naming a Function whose
	// every field is empty.
	if *only == "threadcreate" {
		fail(writeProfile("threadcreate", filepath.Join(*out, "threadcreate.pb.gz")))
		return
	} else if *only != "" {
		fail(fmt.Errorf("-only %q: only threadcreate can be written alone", *only))
	}
	runtime.MemProfileRate = 4096
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)

	fail(cpuProfile(filepath.Join(*out, "cpu.pb.gz")))

	pprof.Do(context.Background(), pprof.Labels("workload", "alloc"), func(context.Context) {
		allocWork(20000)
		jsonWork(500)
	})
	runtime.GC()
	fail(writeProfile("heap", filepath.Join(*out, "heap.pb.gz")))

	contention()
	fail(writeProfile("mutex", filepath.Join(*out, "mutex.pb.gz")))
	fail(writeProfile("block", filepath.Join(*out, "block.pb.gz")))

	// Goroutines parked under labels, so the goroutine profile has labels.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go pprof.Do(context.Background(), pprof.Labels("worker", strings.Repeat("w", i+1)), func(context.Context) {
			defer wg.Done()
			<-stop
		})
	}
	time.Sleep(10 * time.Millisecond)
	fail(writeProfile("goroutine", filepath.Join(*out, "goroutine.pb.gz")))
	fail(writeProfile("threadcreate", filepath.Join(*out, "threadcreate.pb.gz")))
	close(stop)
	wg.Wait()
	sink = live
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gengo:", err)
		os.Exit(1)
	}
}
