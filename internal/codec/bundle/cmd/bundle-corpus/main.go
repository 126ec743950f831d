// Command bundle-corpus writes the corpus the bundle benchmarks measure:
// 50 one-second CPU profiles of this program running a changing mix of
// workloads (hashing, JSON, sorting, regexp, compression, maps, allocation;
// every other workload under pprof.Do labels), and a heap profile after each
// CPU profile: 100 files, cpu-NN.pb.gz and heap-NN.pb.gz, in the directory
// given by -o. The files are what runtime/pprof writes; run it through
// scripts/bench/bundle-corpus.sh.
package main

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"
)

type workload struct {
	name string
	run  func(r *rand.Rand)
}

// keep holds allocations alive across rounds so heap profiles show in-use memory.
var keep [][]byte
var keepMaps []map[string]int

var sink uint64

var workloads = []workload{
	{"sha256", func(r *rand.Rand) {
		buf := make([]byte, 4096)
		for i := range buf {
			buf[i] = byte(r.IntN(256))
		}
		for i := 0; i < 50; i++ {
			s := sha256.Sum256(buf)
			sink += uint64(s[0])
		}
		sink += uint64(crc32.ChecksumIEEE(buf))
	}},
	{"json", func(r *rand.Rand) {
		type rec struct {
			ID    int               `json:"id"`
			Name  string            `json:"name"`
			Tags  []string          `json:"tags"`
			Attrs map[string]string `json:"attrs"`
		}
		recs := make([]rec, 50)
		for i := range recs {
			recs[i] = rec{ID: r.Int(), Name: strconv.Itoa(r.Int()), Tags: []string{"a", "b", strconv.Itoa(i)},
				Attrs: map[string]string{"k": strconv.Itoa(i), "v": "x"}}
		}
		b, _ := json.Marshal(recs)
		var back []rec
		_ = json.Unmarshal(b, &back)
		sink += uint64(len(back))
	}},
	{"sort", func(r *rand.Rand) {
		xs := make([]int, 5000)
		for i := range xs {
			xs[i] = r.Int()
		}
		sort.Ints(xs)
		ss := make([]string, 1000)
		for i := range ss {
			ss[i] = strconv.Itoa(r.Int())
		}
		sort.Strings(ss)
		sink += uint64(xs[0])
	}},
	{"regexp", func(r *rand.Rand) {
		re := regexp.MustCompile(`(\w+)@(\w+)\.(com|org|net)`)
		var sb strings.Builder
		for i := 0; i < 200; i++ {
			fmt.Fprintf(&sb, "user%d@host%d.com some text %d ", r.IntN(1000), i, r.Int())
		}
		sink += uint64(len(re.FindAllStringSubmatch(sb.String(), -1)))
	}},
	{"compress", func(r *rand.Rand) {
		var src bytes.Buffer
		for i := 0; i < 2000; i++ {
			fmt.Fprintf(&src, "line %d value %d\n", i, r.IntN(100))
		}
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, flate.BestCompression)
		w.Write(src.Bytes())
		w.Close()
		sink += uint64(out.Len())
	}},
	{"maps", func(r *rand.Rand) {
		m := make(map[string]int)
		for i := 0; i < 5000; i++ {
			m["key"+strconv.Itoa(r.IntN(2000))]++
		}
		if r.IntN(20) == 0 {
			keepMaps = append(keepMaps, m)
		}
		sink += uint64(len(m))
	}},
	{"alloc", func(r *rand.Rand) {
		for i := 0; i < 100; i++ {
			b := make([]byte, 64+r.IntN(8192))
			if r.IntN(50) == 0 {
				keep = append(keep, b)
			}
		}
		if len(keep) > 4000 {
			keep = keep[len(keep)/2:]
		}
	}},
}

func main() {
	out := flag.String("o", "corpus", "output directory")
	n := flag.Int("n", 50, "number of CPU (and heap) profiles")
	dur := flag.Duration("d", time.Second, "length of each CPU profile")
	memRate := flag.Int("memrate", 0, "runtime.MemProfileRate; 0 keeps the runtime's default (512 KiB)")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *memRate > 0 {
		runtime.MemProfileRate = *memRate
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < *n; i++ {
		if err := round(*out, i, *dur, r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func round(dir string, i int, dur time.Duration, r *rand.Rand) error {
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%02d.pb.gz", i)))
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	// The mix changes every round: each workload gets a weight that drifts.
	weights := make([]int, len(workloads))
	for j := range weights {
		weights[j] = 1 + (i*(j+3)+j*j)%7
	}
	deadline := time.Now().Add(dur)
	for time.Now().Before(deadline) {
		for j, w := range workloads {
			for k := 0; k < weights[j]; k++ {
				if j%2 == 0 {
					labels := pprof.Labels("workload", w.name, "round", strconv.Itoa(i%5))
					pprof.Do(context.Background(), labels, func(context.Context) { w.run(r) })
				} else {
					w.run(r)
				}
			}
		}
	}
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		return err
	}
	runtime.GC()
	h, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%02d.pb.gz", i)))
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(h, 0); err != nil {
		return err
	}
	return h.Close()
}
