package formats

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/formats/wirecheck"
	"github.com/pprofx/pprofx/internal/model"
)

// The schemas the OTLP inputs' framing is checked against.
var (
	otlpSchema    = (&profilespb.ProfilesData{}).ProtoReflect().Descriptor()
	otlpDevSchema = (&devprofilespb.ProfilesData{}).ProtoReflect().Descriptor()
)

// Output formats of OTLP profiles in the OTEP's pprofextended dialect
// (v1experimental). --to otlp writes v1development (the otlp codec).
const (
	OutPprofExtended     OutFormat = "pprofextended"
	OutPprofExtendedJSON OutFormat = "pprofextended-json"
)

func init() {
	read := func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		// The framing is checked as the bytes arrive, under both dialects'
		// schemas (the head may not have told them apart): an input that
		// fits neither fails at its first bad byte, before the rest is read.
		var checked io.Reader = wirecheck.NewProto(r, opts.limit(), "otlp", false, otlpSchema, otlpDevSchema)
		if in.Format == detect.PprofExtendedJSON {
			checked = wirecheck.NewJSON(r, "otlp json")
		}
		data, err := readAll(checked, opts.sizeHint)
		if err != nil {
			return err
		}
		ps, err := pprofextended.Decode(data, pprofextended.DecodeOptions{Warn: opts.Warn})
		if err != nil {
			// The head did not tell v1experimental from v1development
			// (detect.Sniff says v1experimental then): the whole input
			// does.
			if f := detect.Refine(in.Format, data); f != in.Format {
				in.Format = f
				if r, ok := readers[f]; ok {
					return r(bufio.NewReader(bytes.NewReader(data)), in, opts)
				}
				return fmt.Errorf("detected %s, not supported yet", titled(detect.Result{Format: f}))
			}
			return err
		}
		in.Layout = "pprofextended, v1experimental"
		in.Facts = append(in.Facts, [2]string{"profile containers", fmt.Sprint(len(ps))})
		in.Facts = append(in.Facts, resourceScopeFacts(ps)...)
		for _, p := range ps {
			in.Items = append(in.Items, Item{Name: otlpItemName(p.ProfileID, p.Resource.Attributes), Profile: p})
		}
		return nil
	}
	registerReader(detect.PprofExtended, read)
	registerReader(detect.PprofExtendedJSON, read)
	for _, f := range []OutFormat{OutPprofExtended, OutPprofExtendedJSON} {
		json := f == OutPprofExtendedJSON
		w := writer{
			desc:  "OTLP profiles, the OTEP's pprofextended dialect (v1experimental), binary protobuf",
			multi: true,
			memOf: func(p *model.Profile) int64 { return pprofextended.EncodeMemory(p, json) },
			write: func(w io.Writer, items []Item, opts WriteOptions) error {
				eo := pprofextended.EncodeOptions{JSON: json, Gzip: opts.Gzip, ProfileID: opts.ProfileID, Resource: opts.Resource,
					KeepOriginal: opts.KeepOriginal, ScopeVersion: opts.ScopeVersion, Warn: opts.Warn}
				if s := items[0].Stream; s != nil && !json {
					return pprofextended.EncodeStream(w, s.Tables, s.Samples, "", eo)
				}
				ps := make([]*model.Profile, len(items))
				for i, it := range items {
					ps[i] = it.Profile
				}
				return pprofextended.Encode(w, ps, eo)
			},
		}
		if json {
			w.desc = "OTLP profiles, pprofextended dialect (v1experimental), OTLP JSON"
			w.text = true
		}
		registerWriter(f, w)
	}
}

// otlpItemName names a profile of an OTLP input by its id and the
// resource's service.name, e.g. "id 0123…, service.name=api".
func otlpItemName(id []byte, res []model.Attribute) string {
	parts := []string{"id " + hex.EncodeToString(id)}
	for _, a := range res {
		if a.Key == "service.name" {
			parts = append(parts, "service.name="+a.Value.Str)
		}
	}
	return strings.Join(parts, ", ")
}

func attrText(as []model.Attribute) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, a.Key+"="+otlpcommon.ValueText(a.Value))
	}
	return strings.Join(parts, ", ")
}

// resourceScopeFacts is the resource and scope lines of inspect for OTLP
// profiles: the one value they share, or that it differs between them.
func resourceScopeFacts(ps []*model.Profile) [][2]string {
	var facts [][2]string
	for _, f := range []struct {
		name string
		of   func(p *model.Profile) string
	}{
		{"resource", func(p *model.Profile) string { return attrText(p.Resource.Attributes) }},
		{"scope", func(p *model.Profile) string { return strings.TrimSpace(p.Scope.Name + " " + p.Scope.Version) }},
	} {
		v := f.of(ps[0])
		for _, p := range ps[1:] {
			if f.of(p) != v {
				v = "(differs between profiles)"
				break
			}
		}
		if v != "" {
			facts = append(facts, [2]string{f.name, v})
		}
	}
	return facts
}
