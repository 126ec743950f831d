// Package officialtest checks pprofx's OTLP profiles v1development output
// (opentelemetry-proto v1.11.0) with the official Go bindings,
// go.opentelemetry.io/proto/otlp/profiles/v1development v0.4.0 (and
// protojson), and with the collector's own data layer,
// go.opentelemetry.io/collector/pdata/pprofile v0.164.0: every output is
// read with no unknown fields and, read by the semantic conventions alone
// (through the official bindings and through pdata's API), is the source
// pprof as google/pprof reads it, with no allowance; files the collector's marshalers write from those (binary, JSON,
// JSON lines and fileexporter framing) are read back by pprofx into the
// same pprof. JFR recordings are checked against pprofx's pprof of the same
// recording (read by google/pprof) and, for frame types and timestamps,
// against pprofx's JFR reader, which links in here (it holds no protobuf
// code).
//
// It is its own module, beside internal/codec/pprofextended/officialtest (which checks the
// pprofextended dialect with go.opentelemetry.io/proto/otlp v1.3.1): the
// v1development bindings need go.opentelemetry.io/proto/otlp v1.11.0, which
// no longer holds profiles/v1experimental, and a module can require only one
// version of it. pprofx itself runs as a separate binary (built by
// TestMain): its generated code and the official bindings register the same
// protobuf names and cannot be linked into one program. Run with go test
// -count=1 (make test does): the test cache does not see pprofx's changes.
package officialtest
