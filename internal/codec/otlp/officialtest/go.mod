module github.com/pprofx/pprofx/internal/codec/otlp/officialtest

go 1.26.8

replace github.com/pprofx/pprofx => ../../../..

require (
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/pprofx/pprofx v0.0.0
	go.opentelemetry.io/collector/pdata v1.70.0
	go.opentelemetry.io/collector/pdata/pprofile v0.164.0
	go.opentelemetry.io/proto/otlp v1.11.0
	go.opentelemetry.io/proto/otlp/profiles/v1development v0.4.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/grafana/jfr-parser v0.18.0 // indirect
	github.com/hashicorp/go-version v1.9.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	go.opentelemetry.io/collector/featuregate v1.70.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)
