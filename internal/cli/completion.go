package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// NewCmdCompletion builds `pprofx completion SHELL`, in place of cobra's
// default command, whose help shows lines that need root, Homebrew or a
// writable zsh fpath.
func NewCmdCompletion(ios *IOStreams) *cobra.Command {
	var noDesc bool
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Completion prints the script that makes SHELL complete pprofx's commands,
flags and file names. Load it into the running shell, or save it where the
shell looks for completions (bash: the bash-completion package's user
directory; zsh: a directory in $fpath, after compinit). The bash script
needs the bash-completion package (apt-get install bash-completion).`,
		Example: `  source <(pprofx completion bash)
  mkdir -p ~/.local/share/bash-completion/completions && pprofx completion bash > ~/.local/share/bash-completion/completions/pprofx
  autoload -U compinit && compinit && source <(pprofx completion zsh)   # zsh
  pprofx completion fish | source   # fish
  pprofx completion powershell | Out-String | Invoke-Expression   # PowerShell`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), ios.Out
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, !noDesc)
			case "zsh":
				if noDesc {
					return root.GenZshCompletionNoDesc(out)
				}
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, !noDesc)
			case "powershell":
				if noDesc {
					return root.GenPowerShellCompletion(out)
				}
				return root.GenPowerShellCompletionWithDesc(out)
			}
			return &UsageError{fmt.Sprintf("unknown shell %q: one of bash, zsh, fish, powershell", args[0])}
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "leave the descriptions of commands and flags out of completions")
	return cmd
}
