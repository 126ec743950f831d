// Package collectortest proves `pprofx push` against a real OpenTelemetry
// Collector, built from the official modules by ./cmd/otelcol-pprofx (see
// README.md for the versions and why). TestMain builds the collector; each
// test starts it on loopback ports chosen at run time, pushes real
// fixtures with pprofx (in this process, through cli.Main), stops it, and
// reads what its file exporter wrote: with the collector's own pdata
// unmarshaler, and with pprofx's v1development reader, converted back to
// pprof and compared sample for sample with what was sent (pprofcmp).
//
// It is its own module so that the main module never depends on the
// collector. PPROFX_SKIP_COLLECTOR=1 skips it (make test says so).
package collectortest
