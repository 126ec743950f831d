// Command genlegacy writes Go's legacy text profiles (runtime/pprof's
// debug=1 output) under testdata/legacy (go-NAME.txt): heap, goroutine, threadcreate,
// mutex and block of one small run.
//
//	go run ./internal/tools/genlegacy -o testdata/legacy
//
// Each run gives different (real) samples; the files are regenerated only
// when the fixtures need to change.
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var sink any

// live keeps some memory in use so that the heap profile has in-use
// samples.
var live [][]byte

//go:noinline
func allocSmall(n int) {
	for i := 0; i < n; i++ {
		b := make([]byte, 256+i%1024)
		if i%4 == 0 {
			live = append(live, b)
		}
	}
}

//go:noinline
func allocLarge(n int) {
	for i := 0; i < n; i++ {
		live = append(live, make([]byte, 64<<10))
	}
}

func hashWork(n int) {
	var sum [32]byte
	for i := 0; i < n; i++ {
		sum = sha256.Sum256(sum[:])
	}
	sink = sum
}

// contend makes mutex and block profile samples: goroutines that wait
// on one mutex and on a channel.
func contend() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				mu.Lock()
				hashWork(20)
				mu.Unlock()
			}
		}()
	}
	ch := make(chan int)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			time.Sleep(time.Millisecond)
			ch <- i
		}
		close(ch)
	}()
	for range ch {
	}
	wg.Wait()
}

// park starts goroutines that wait, under pprof labels, so that the
// goroutine profile has stacks with labels.
func park(stop chan struct{}, ready *sync.WaitGroup) {
	for _, w := range []string{"a", "b", "c"} {
		ready.Add(1)
		go pprof.Do(context.Background(), pprof.Labels("worker", w), func(context.Context) {
			ready.Done()
			<-stop
		})
	}
}

func write(dir, name string) error {
	f, err := os.Create(filepath.Join(dir, "go-"+name+".txt"))
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 1); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func main() {
	out := flag.String("o", "testdata/legacy", "output directory")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	runtime.MemProfileRate = 4096
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)
	allocSmall(2000)
	allocLarge(16)
	contend()
	stop := make(chan struct{})
	var ready sync.WaitGroup
	park(stop, &ready)
	ready.Wait()
	runtime.GC() // the heap profile shows the state as of the last GC
	for _, name := range []string{"heap", "goroutine", "threadcreate", "mutex", "block"} {
		if err := write(*out, name); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	close(stop)
	runtime.KeepAlive(live)
}
