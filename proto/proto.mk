# Included by the top-level Makefile: `make proto` regenerates the OTLP code.
.PHONY: proto
proto:
	sh proto/gen.sh
