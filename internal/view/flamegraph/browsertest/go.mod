module github.com/pprofx/pprofx/internal/view/flamegraph/browsertest

go 1.26.8

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/pprofx/pprofx v0.0.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe // indirect
	github.com/grafana/jfr-parser v0.18.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/klauspost/pgzip v1.3.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace github.com/pprofx/pprofx => ../../../..
