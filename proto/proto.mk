# Included by the top-level Makefile (include proto/proto.mk).
#   make proto               regenerates internal/codec/otlp/otlppb from proto/ (needs protoc)
#   make test-otlp-official  runs the nested module that checks pprofx's OTLP
#                            output with the official v1.3.1 Go bindings
.PHONY: proto test-otlp-official
proto:
	sh proto/gen.sh

test-otlp-official:
	cd internal/codec/pprofextended/officialtest && go test -count=1 ./...
