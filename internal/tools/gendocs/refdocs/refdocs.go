// Package refdocs generates pprofx's command reference (markdown and man
// pages) from the cobra command tree, so that it always says what the
// code does; a test compares the committed reference with it.
package refdocs

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/pprofx/pprofx/internal/cli"
)

// Write replaces dir/cli and dir/man with the reference of every command.
func Write(dir string) error {
	files, err := Generate()
	if err != nil {
		return err
	}
	for _, sub := range []string{"cli", "man"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// thDate is the date field of a man page's .TH line, which cobra fills
// with the day of the run.
var thDate = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*" )"[^"]*"`)

// Generate returns the reference as file names (cli/NAME.md, man/NAME.1)
// and contents.
func Generate() (map[string][]byte, error) {
	root := cli.NewRootCmd(cli.System())
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	tmp, err := os.MkdirTemp("", "pprofx-docs")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	md, man := filepath.Join(tmp, "cli"), filepath.Join(tmp, "man")
	os.Mkdir(md, 0o755)
	os.Mkdir(man, 0o755)
	if err := doc.GenMarkdownTree(root, md); err != nil {
		return nil, err
	}
	if err := doc.GenManTree(root, &doc.GenManHeader{Title: "PPROFX", Section: "1", Source: "pprofx", Manual: "pprofx manual"}, man); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, sub := range []string{"cli", "man"} {
		entries, err := os.ReadDir(filepath.Join(tmp, sub))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(tmp, sub, e.Name()))
			if err != nil {
				return nil, err
			}
			if sub == "man" {
				data = thDate.ReplaceAll(data, []byte(`$1""`))
			}
			out[filepath.Join(sub, e.Name())] = bytes.TrimRight(data, "\n")
			out[filepath.Join(sub, e.Name())] = append(out[filepath.Join(sub, e.Name())], '\n')
		}
	}
	return out, nil
}
