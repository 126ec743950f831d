// Command genhostile writes the crafted inputs (package
// internal/testutil/hostile) into a folder and prints one line per case, tab
// separated: file, decompressed size, expected exit status, expected
// message ("-" for none), "early" when it must be refused after its first
// bytes (else "-"), description, pprofx arguments (IN: the file, OUT: a
// scratch output), "limited" when it must end with exit 0 or 1 under an
// address-space limit (else "-"). The expected exit status is "0|1" when
// it depends on the memory the run has. scripts/bench/hostile-rss.sh and
// scripts/bench/hostile-limits.sh run them.
//
//	go run ./internal/tools/genhostile -o /tmp/hostile [-small] [-list] [-force] [-only PATTERN]
//
// Files already there are kept (-force writes them again). -only keeps the
// cases whose file name matches a shell pattern (path.Match), e.g.
// 'bundle-entries*'.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/pprofx/pprofx/internal/testutil/hostile"
)

func main() {
	out := flag.String("o", "hostile", "folder to write the files into")
	small := flag.Bool("small", false, "the tests' small scale instead of full scale")
	list := flag.Bool("list", false, "print the lines only; write no file")
	force := flag.Bool("force", false, "write every file, even those already there (the generator is deterministic)")
	only := flag.String("only", "*", "only the cases whose file name matches this shell pattern")
	flag.Parse()
	if _, err := path.Match(*only, ""); err != nil {
		fmt.Fprintf(os.Stderr, "genhostile: -only %q: %v\n", *only, err)
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "genhostile:", err)
		os.Exit(1)
	}
	done := map[string]bool{}
	for _, c := range hostile.Cases(*small) {
		if ok, _ := path.Match(*only, c.Name); !ok {
			continue
		}
		file := filepath.Join(*out, c.Name)
		if !done[c.Name] && !*list && (*force || !exists(file)) {
			done[c.Name] = true
			if err := write(file, c); err != nil {
				fmt.Fprintf(os.Stderr, "genhostile: %s: %v\n", c.Name, err)
				os.Exit(1)
			}
		}
		if c.Raw < 0 {
			// What a bundle's blocks decompress to, from the file.
			data, err := os.ReadFile(file)
			if err == nil {
				c.Raw, err = hostile.BundleRaw(data)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "genhostile: %s: %v (write the files first)\n", c.Name, err)
				os.Exit(1)
			}
		}
		exit := fmt.Sprint(c.Exit)
		if c.Exit < 0 {
			exit = "0|1"
		}
		limited := "-"
		if c.Limited {
			limited = "limited"
		}
		msg := c.Msg
		if msg == "" {
			msg = "-" // a field is never empty: shells fold empty tab-separated fields
		}
		early := "-"
		if c.Early {
			early = "early"
		}
		fmt.Printf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Raw, exit, msg, early, c.Desc, strings.Join(c.Args, " "), limited)
	}
}

func exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() > 0
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
