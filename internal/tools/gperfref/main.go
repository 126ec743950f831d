// Command gperfref is the reference side of scripts/bench/gperf-bench.sh:
// google/pprof's profile.ParseData of a whole file, and with -write also
// profile.Write (which gzips) to a file, as a process of its own, so that
// its wall time and peak RSS are measured as pprofx's are.
//
//	go run ./internal/tools/gperfref /tmp/d32.prof
//	go run ./internal/tools/gperfref -write /tmp/out.pb.gz /tmp/d32.prof
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

func main() {
	out := flag.String("write", "", "also write the profile (gzipped, profile.Write) to this file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gperfref [-write OUT] FILE")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gperfref:", err)
		os.Exit(1)
	}
	p, err := profile.ParseData(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gperfref:", err)
		os.Exit(1)
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err == nil {
			err = p.Write(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gperfref:", err)
			os.Exit(1)
		}
	}
	fmt.Println(len(p.Sample), "samples")
}
