module github.com/pprofx/pprofx/internal/codec/pprofextended/officialtest

go 1.26.8

require (
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/pprofx/pprofx v0.0.0
	go.opentelemetry.io/proto/otlp v1.3.1
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/grafana/jfr-parser v0.18.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/klauspost/pgzip v1.3.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

replace github.com/pprofx/pprofx => ../../../..
