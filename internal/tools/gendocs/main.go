// Command gendocs writes pprofx's command reference from the command tree:
// markdown under DIR/cli and man pages under DIR/man (`make docs`). The
// output is the same bytes on every run: no date, no generator stamp.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pprofx/pprofx/internal/tools/gendocs/refdocs"
)

func main() {
	dir := flag.String("o", "docs", "the docs folder: writes DIR/cli and DIR/man")
	flag.Parse()
	if err := refdocs.Write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
