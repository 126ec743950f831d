// Package officialtest checks pprofx's OTLP output with the official Go
// bindings, go.opentelemetry.io/proto/otlp v1.3.1 profiles/v1experimental,
// against the source pprof read by google/pprof.
//
// It is its own module so that the main module never imports the official
// bindings (newer versions of that module drop this schema). pprofx's
// encoder runs in a separate program, ./encode, because its generated code
// and the official bindings register the same protobuf names and cannot be
// linked into one binary. Run it with go test -count=1 (make
// test-otlp-official does): the test cache does not see changes to the
// encoder, which runs through go run.
package officialtest
