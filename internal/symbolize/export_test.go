package symbolize

import "testing"

// UseInflater makes lazy sections use the inflater name (see inflaters)
// until restore is called: for the benchmarks of package symbolize_test,
// which compare them end to end.
func UseInflater(tb testing.TB, name string) (restore func()) { return useInflater(tb, name) }

// InflaterNames are the inflaters' names, in a fixed order.
func InflaterNames() []string { return inflaterNames() }
