// Command genhostile writes the crafted inputs (package
// internal/testutil/hostile) into a folder and prints one line per case, tab
// separated: file, decompressed size, expected exit status, expected
// message ("-" for none), "early" when it must be refused after its first
// bytes (else "-"), description, pprofx arguments (IN: the file, OUT: a
// scratch output). scripts/bench/hostile-rss.sh runs them.
//
//	go run ./internal/tools/genhostile -o /tmp/hostile [-small] [-list]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pprofx/pprofx/internal/testutil/hostile"
)

func main() {
	out := flag.String("o", "hostile", "folder to write the files into")
	small := flag.Bool("small", false, "the tests' small scale instead of the issue's")
	list := flag.Bool("list", false, "print the lines only; write no file")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "genhostile:", err)
		os.Exit(1)
	}
	done := map[string]bool{}
	for _, c := range hostile.Cases(*small) {
		path := filepath.Join(*out, c.Name)
		if !done[c.Name] && !*list {
			done[c.Name] = true
			if err := write(path, c); err != nil {
				fmt.Fprintf(os.Stderr, "genhostile: %s: %v\n", c.Name, err)
				os.Exit(1)
			}
		}
		msg := c.Msg
		if msg == "" {
			msg = "-" // a field is never empty: shells fold empty tab-separated fields
		}
		early := "-"
		if c.Early {
			early = "early"
		}
		fmt.Printf("%s\t%d\t%d\t%s\t%s\t%s\t%s\n", c.Name, c.Raw, c.Exit, msg, early, c.Desc, strings.Join(c.Args, " "))
	}
}

func write(path string, c hostile.Case) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := c.Gen(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
