#!/bin/sh
# Regenerates internal/codec/otlp/otlppb/... and
# internal/codec/pprofextended/profilespb from the .proto files beside this
# script, with Debian's protoc and the protoc-gen-go pinned by go.mod.
# Run from anywhere: sh proto/gen.sh (or `make proto`). With OUT=dir the
# code is written under dir instead of the repository (the up-to-date test
# uses that).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v protoc >/dev/null || { echo "proto/gen.sh: protoc not found (apt-get install protobuf-compiler)" >&2; exit 1; }
out=${OUT:-.}
mkdir -p bin "$out"
go build -o bin/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
pkg=github.com/pprofx/pprofx/internal/codec/otlp/otlppb
old=github.com/pprofx/pprofx/internal/codec/pprofextended
protoc -I proto \
	--plugin=protoc-gen-go=bin/protoc-gen-go \
	--go_out="$out" --go_opt=module=github.com/pprofx/pprofx \
	--go_opt=Mopentelemetry/proto/common/v1/common.proto="$pkg/commonpb;commonpb" \
	--go_opt=Mopentelemetry/proto/resource/v1/resource.proto="$pkg/resourcepb;resourcepb" \
	--go_opt=Mopentelemetry/proto/profiles/v1experimental/profiles.proto="$old/profilespb;profilespb" \
	--go_opt=Mopentelemetry/proto/profiles/v1experimental/pprofextended.proto="$old/profilespb;profilespb" \
	--go_opt=Mopentelemetry/proto/profiles/v1development/profiles.proto="$pkg/devprofilespb;devprofilespb" \
	--go_opt=Mopentelemetry/proto/collector/profiles/v1development/profiles_service.proto="$pkg/devcollectorpb;devcollectorpb" \
	opentelemetry/proto/common/v1/common.proto \
	opentelemetry/proto/resource/v1/resource.proto \
	opentelemetry/proto/profiles/v1experimental/profiles.proto \
	opentelemetry/proto/profiles/v1experimental/pprofextended.proto \
	opentelemetry/proto/profiles/v1development/profiles.proto \
	opentelemetry/proto/collector/profiles/v1development/profiles_service.proto
