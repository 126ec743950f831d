package formats

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/formats/wirecheck"
	"github.com/pprofx/pprofx/internal/model"
)

// Output formats of OTLP profiles v1development (opentelemetry-proto
// v1.11.0), what collectors speak today.
const (
	OutOTLP       OutFormat = "otlp"
	OutOTLPJSON   OutFormat = "otlp-json"
	OutOTLPJSONL  OutFormat = "otlp-jsonl"
	OutOTLPFramed OutFormat = "otlp-framed"
)

func init() {
	read := func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		// The framing is checked as the bytes arrive (also of each message
		// of a collector file): an input that goes wrong fails at its first
		// bad byte, before the rest is read.
		pc := wirecheck.NewProto(r, opts.limit(), "otlp", true, otlpDevSchema)
		var checked io.Reader = pc
		if in.Format == detect.OTLPJSON {
			checked = wirecheck.NewJSON(r, "otlp json")
		}
		data, err := readAll(checked, opts.sizeHint)
		if err != nil {
			return err
		}
		if checked == pc {
			// What parsing the messages takes, counted before it is
			// allocated (millions of empty samples, or of empty messages).
			if err := model.CheckMemory("otlp", pc.Need(), int64(len(data)), "the messages"); err != nil {
				return err
			}
		}
		return readOTLPDev(data, in, opts)
	}
	registerReader(detect.OTLP, read)
	registerReader(detect.OTLPJSON, read)
	for _, w := range []struct {
		f        OutFormat
		desc     string
		suffixes []string
		enc      func(io.Writer, []*model.Profile, otlp.EncodeOptions) error
	}{
		{OutOTLP, "OTLP profiles v1development, binary protobuf (.otlp; .otlp.gz gzipped)", []string{".otlp", ".otlp.gz"}, otlp.Encode},
		{OutOTLPJSON, "OTLP profiles v1development, OTLP JSON (.otlp.json; .otlp.json.gz gzipped)", []string{".otlp.json", ".otlp.json.gz"}, otlp.EncodeJSON},
		{OutOTLPJSONL, "OTLP profiles v1development, JSON lines as the collector's fileexporter writes them (.jsonl)", []string{".jsonl", ".jsonl.gz"}, otlp.EncodeJSONLines},
		{OutOTLPFramed, "OTLP profiles v1development, 4-byte-length framed protobuf as the fileexporter's format: proto writes it", nil, otlp.EncodeFramed},
	} {
		enc, f := w.enc, w.f
		json := f == OutOTLPJSON || f == OutOTLPJSONL
		registerWriter(w.f, writer{desc: w.desc, suffixes: w.suffixes, multi: true, text: json,
			memOf: func(p *model.Profile) int64 { return otlp.EncodeMemory(p, json) },
			write: func(out io.Writer, items []Item, opts WriteOptions) error {
				eo := otlp.EncodeOptions{Gzip: opts.Gzip, ProfileID: opts.ProfileID, Resource: opts.Resource,
					KeepOriginal: opts.KeepOriginal, ScopeVersion: opts.ScopeVersion, Warn: opts.Warn}
				if s := items[0].Stream; s != nil && f == OutOTLP {
					return otlp.EncodeStream(out, s.Tables, s.Samples, "", eo)
				} else if s != nil && f == OutOTLPFramed {
					return otlp.EncodeFramedStream(out, s.Tables, s.Samples, "", eo)
				}
				ps := make([]*model.Profile, len(items))
				for i, it := range items {
					ps[i] = it.Profile
				}
				return enc(out, ps, eo)
			}})
	}
}

// readOTLPDev reads OTLP profiles v1development (any of its layouts) into in.
func readOTLPDev(data []byte, in *Input, opts ReadOptions) error {
	layout, err := otlp.ParseSampleLayout(opts.OTLPProto)
	if err != nil {
		return err
	}
	do := otlp.DecodeOptions{Layout: layout, Warn: opts.Warn}
	if opts.Validate {
		fs, _, err := otlp.ValidateData(data, do, 1000)
		if err != nil {
			return err
		}
		in.Findings = fs
		for _, f := range fs {
			if f.Severity == otlp.Must {
				return nil
			}
		}
	}
	parsed, err := otlp.ReadForDecode(data, do)
	if err != nil {
		return err
	}
	msgs, layouts := parsed.Messages, parsed.Layouts
	// The Sample layout the binary messages were read in (told, or
	// from their bytes).
	layout = otlp.LayoutAuto
	for _, l := range layouts {
		if l != otlp.LayoutAuto {
			layout = l
		}
		if l != layouts[0] {
			layout = otlp.LayoutAuto
			break
		}
	}
	// The input is not used past here: its bytes can go while the
	// messages are made into profiles.
	framed := parsed.Framed
	data = nil
	do.Release = true // only the messages' profiles are counted below
	ps, err := parsed.Decode(do)
	if err != nil {
		return err
	}
	var parts []string
	if in.Format == detect.OTLPJSON && len(msgs) > 1 {
		parts = append(parts, "JSON lines")
	}
	if framed {
		parts = append(parts, "collector file, 4-byte length framed")
	} else if in.Layout != "" {
		parts = append(parts, in.Layout)
	}
	if layout == otlp.LayoutV19 {
		parts = append(parts, "proto v1.9 Sample layout")
	}
	in.Layout = strings.Join(parts, ", ")
	nprof := 0
	for _, pd := range msgs {
		for _, rp := range pd.ResourceProfiles {
			for _, sp := range rp.GetScopeProfiles() {
				nprof += len(sp.GetProfiles())
			}
		}
	}
	release := layout.String()
	switch {
	case in.Format == detect.OTLPJSON:
		release = "OTLP JSON (fields by name)"
	case layout == otlp.LayoutAuto:
		release = "messages in both Sample layouts"
	}
	if opts.OTLPProto == "" && in.Format == detect.OTLP {
		release += ", told from the bytes"
	}
	in.Facts = append(in.Facts, [2]string{"dialect", "v1development, " + release})
	if len(msgs) > 1 {
		in.Facts = append(in.Facts, [2]string{"messages", fmt.Sprint(len(msgs))})
	}
	// A scope's Profiles (one per sample type) that line up are one
	// profile with several sample types.
	in.Facts = append(in.Facts, [2]string{"OTLP profiles", fmt.Sprintf("%d, read as %d with their sample types joined", nprof, len(ps))})
	in.Facts = append(in.Facts, resourceScopeFacts(ps)...)
	for i, p := range ps {
		in.Items = append(in.Items, Item{Name: otlpDevItemName(i, p), Profile: p})
	}
	return nil
}

// otlpDevItemName names a profile of a v1development input: its place, id
// (if any) and the resource's service.name.
func otlpDevItemName(i int, p *model.Profile) string {
	parts := []string{fmt.Sprintf("profile %d", i)}
	if len(p.ProfileID) > 0 {
		parts = append(parts, "id "+hex.EncodeToString(p.ProfileID))
	}
	for _, a := range p.Resource.Attributes {
		if a.Key == "service.name" {
			parts = append(parts, "service.name="+a.Value.Str)
		}
	}
	return strings.Join(parts, ", ")
}
