// Command encode writes pprofx's OTLP output for the official-bindings
// test: for each profile file given, NAME.otlp (binary) and NAME.otlp.json
// (OTLP JSON) in the -o directory, through pprofx's readers and OTLP
// encoder (and for a non-pprof input NAME.src.pb.gz, pprofx's pprof of it); and descriptors.binpb, the FileDescriptorSet of pprofx's
// generated OTLP code.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/resourcepb"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
)

func main() {
	out := flag.String("o", "", "output directory")
	flag.Parse()
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "encode:", err)
		os.Exit(1)
	}
}

func run(out string, files []string) error {
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range []protoreflect.FileDescriptor{
		commonpb.File_opentelemetry_proto_common_v1_common_proto,
		resourcepb.File_opentelemetry_proto_resource_v1_resource_proto,
		profilespb.File_opentelemetry_proto_profiles_v1experimental_pprofextended_proto,
		profilespb.File_opentelemetry_proto_profiles_v1experimental_profiles_proto,
	} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	data, err := proto.Marshal(set)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "descriptors.binpb"), data, 0o644); err != nil {
		return err
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		in, err := formats.Read(f, formats.ReadOptions{})
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		p := in.Items[0].Profile
		base := filepath.Join(out, strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".pb.gz"), ".prof"))
		if in.Format != detect.Pprof {
			// The reference for a non-pprof input: pprofx's pprof of it.
			var buf bytes.Buffer
			if err := pprof.Encode(&buf, p, pprof.EncodeOptions{}); err != nil {
				return err
			}
			if err := os.WriteFile(base+".src.pb.gz", buf.Bytes(), 0o644); err != nil {
				return err
			}
		}
		for _, o := range []struct {
			ext  string
			json bool
		}{{".otlp", false}, {".otlp.json", true}} {
			var buf bytes.Buffer
			if err := pprofextended.Encode(&buf, []*model.Profile{p}, pprofextended.EncodeOptions{JSON: o.json, ScopeVersion: "test"}); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			if err := os.WriteFile(base+o.ext, buf.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
