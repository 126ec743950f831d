package cli

import "testing"

// Main builds only the subcommand its arguments name: each command's help,
// a usage error, and the completion scripts read the same as with the
// whole tree.
func TestOnlyNamedSubcommand(t *testing.T) {
	for _, sub := range subcommands {
		cases := [][]string{{sub.name, "--help"}, {sub.name, "--no-such-flag"}}
		if sub.name == "completion" {
			// The scripts call back "pprofx __complete", which builds
			// the whole tree; the scripts themselves are the same.
			cases = append(cases, []string{"completion", "bash"}, []string{"completion", "zsh"}, []string{"completion", "fish"})
		}
		for _, args := range cases {
			run := func(root func(*IOStreams) int) (string, string, int) {
				s := newStreams(nil)
				code := root(s.ios)
				return s.out.String(), s.err.String(), code
			}
			lazyOut, lazyErr, lazyCode := run(func(ios *IOStreams) int { return Main(args, ios) })
			fullOut, fullErr, fullCode := run(func(ios *IOStreams) int {
				root := NewRootCmd(ios)
				root.SetArgs(args)
				_, err := root.ExecuteC()
				if err != nil {
					ios.ErrOut.Write([]byte(err.Error()))
					return ExitUsage
				}
				return ExitOK
			})
			if commandNamed(args) != sub.name {
				t.Errorf("%v: commandNamed = %q", args, commandNamed(args))
			}
			if lazyOut != fullOut {
				t.Errorf("%v: output differs from the whole tree's:\n%s\n---\n%s", args, lazyOut, fullOut)
			}
			if (lazyErr == "") != (fullErr == "") || (lazyCode == ExitOK) != (fullCode == ExitOK) {
				t.Errorf("%v: status %d, stderr %q; whole tree: %d, %q", args, lazyCode, lazyErr, fullCode, fullErr)
			}
		}
	}
	for _, args := range [][]string{nil, {"--help"}, {"help", "convert"}, {"symbolise"}, {"__complete", "sym"}} {
		if got := commandNamed(args); got != "" {
			t.Errorf("%v: commandNamed = %q, want the whole tree", args, got)
		}
	}
}
