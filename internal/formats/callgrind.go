package formats

import "github.com/pprofx/pprofx/internal/detect"

func init() {
	// Recognised so that it is named ("detected callgrind profile, not
	// supported yet"), never read as folded stacks.
	formatTitles[detect.Callgrind] = "callgrind profile"
}
