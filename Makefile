# pprofx — make test is what CI runs (.ci/run).
GO ?= go

.PHONY: all build install test vet cross agree fmt-check bench fuzz fixtures docs clean

all: build

# CGO_ENABLED=0: a static binary, which starts ~3 ms sooner (no dynamic
# loader, no C runtime) and runs on any Linux; nothing in pprofx needs cgo.
# grpcnotrace (grpc-go's build tag) leaves out golang.org/x/net/trace, whose
# package initializers (html/template, handlers on http.DefaultServeMux) every
# command paid for: 4 MB of binary, about 2.5 ms of start-up. pprofx serves
# no HTTP and never enabled gRPC tracing, so nothing is lost.
BUILDFLAGS ?= -tags grpcnotrace

build:
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o bin/pprofx ./cmd/pprofx

install:
	CGO_ENABLED=0 $(GO) install $(BUILDFLAGS) ./cmd/pprofx

include proto/proto.mk

# The one test command: formatting, vet, every test, and the nested module
# modules that read pprofx's OTLP output with the official OpenTelemetry
# bindings (pprofextended: internal/codec/pprofextended/officialtest; v1development, and the
# collector's pdata: internal/codec/otlp/officialtest).
test: fmt-check vet cross
	$(GO) test ./...
	$(MAKE) agree
	cd internal/codec/pprofextended/officialtest && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd internal/codec/otlp/officialtest && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd internal/view/flamegraph/browsertest && $(GO) vet ./... && $(GO) test -count=1 ./...
	@if [ -n "$$PPROFX_SKIP_COLLECTOR" ] && [ -z "$$CI" ]; then \
		echo "make test: PPROFX_SKIP_COLLECTOR is set: SKIPPED internal/push/collectortest (pushes to a real collector; CI runs it)"; \
	else \
		echo "cd internal/push/collectortest && $(GO) vet ./... && $(GO) test -count=1 ./..."; \
		cd internal/push/collectortest && $(GO) vet ./... && $(GO) test -count=1 ./...; \
	fi

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The command builds for the other systems and a 32-bit target, and every
# package, tests included, compiles and vets there (the tests run on Linux
# only; those that need FIFOs or getrusage skip or report 0 elsewhere).
cross:
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./cmd/pprofx
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/pprofx
	GOOS=windows GOARCH=amd64 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOARCH=386 $(GO) vet ./...

# pprofx's symbolization against google/pprof's (binutils) on a real C++
# library with its DWARF, libstdc++6-<gcc>-dbg's debug build: every
# location must agree but where addr2line names another file and
# llvm-symbolizer agrees with pprofx (scripts/symbolize-agree.sh, docs/symbolization.md). CI installs the library and llvm (.ci/run); elsewhere,
# without them, this says SKIPPED.
agree:
	@lib=$$(ls /usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.* 2>/dev/null | grep -v -e '-gdb.py$$' | head -1); \
	if [ -n "$$lib" ] && command -v llvm-symbolizer >/dev/null && command -v addr2line >/dev/null; then \
		echo "CHECK=1 SHOW=3 scripts/symbolize-agree.sh $$lib"; \
		CHECK=1 SHOW=3 scripts/symbolize-agree.sh "$$lib"; \
	elif [ -n "$$CI" ]; then \
		echo "make agree: no libstdc++ debug build or no llvm-symbolizer (.ci/run installs them)" >&2; exit 1; \
	else \
		echo "make agree: SKIPPED (needs libstdc++6-<gcc>-dbg, llvm and binutils: apt-get install libstdc++6-12-dbg llvm)"; \
	fi

# Every in-process benchmark once (docs/performance.md, scripts/bench/README.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...

# A short run of every fuzz target, as `go test -list` finds them
# (scripts/fuzz.sh). Each gets -fuzzminimizetime 2s: by default the engine
# spends up to a minute shrinking each new interesting input of a target
# whose inputs are large (OTLP messages, ELF binaries of 10-280 KB, JFR
# recordings) and reports no executions meanwhile (FuzzELF seemed stuck at
# 0 execs/s; with 2 s it runs ~600 execs/s here and finds new coverage).
#
# The engine shares each input with its worker through a file in TMPDIR;
# on a disk-backed /tmp the writes to it can stall a worker for more than
# the 10 s the engine allows one execution, which it then reports as
# "fuzzing process hung or terminated unexpectedly" (golang/go#56238).
# FUZZTMP, a tmpfs where there is one, keeps that file in memory.
FUZZTIME ?= 30s
FUZZTMP ?= $(shell test -d /dev/shm && echo /dev/shm || echo $${TMPDIR:-/tmp})
fuzz: export TMPDIR := $(FUZZTMP)
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# The command reference, generated from the command tree: markdown under
# docs/cli, man pages under docs/man. A test fails when they are stale.
docs:
	$(GO) run ./internal/tools/gendocs -o docs

# Regenerate the Go runtime/pprof fixtures (new real samples each time).
fixtures:
	$(GO) run ./internal/tools/gengo -o testdata/go

clean:
	rm -rf bin
