// Command pprofx converts, inspects, merges and unpacks profiles.
package main

import (
	"os"

	"github.com/pprofx/pprofx/internal/cli"
)

func main() { os.Exit(cli.Execute()) }
