package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/pprofx/pprofx/internal/cli.Version=v1.2.3";
// otherwise the module version from the build info is used.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// NewCmdVersion builds `pprofx version`.
func NewCmdVersion(ios *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print pprofx's version",
		Example: "  pprofx version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(ios.Out, "pprofx %s (%s %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
