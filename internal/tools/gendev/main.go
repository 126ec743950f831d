// Command gendev writes OTLP profiles v1development fixtures with the
// OpenTelemetry Collector's own pdata marshalers (the bytes the collector
// writes), from a real Go CPU profile:
//
//	cd internal/tools/gendev && go run . -in ../../../testdata/go/cpu.pb.gz -o ../../../testdata/otlp-dev
//
// It writes cpu.otlp (pprofile.ProtoMarshaler: ProfilesData),
// cpu.otlp.json (pprofile.JSONMarshaler) and cpu.framed (the ProfilesData
// prefixed with its length, 4 bytes big-endian, as the collector's file
// exporter writes it with format: proto). Its own module keeps pdata out
// of pprofx's dependencies.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

func main() {
	in := flag.String("in", "../../../testdata/go/cpu.pb.gz", "pprof profile to convert")
	out := flag.String("o", "../../../testdata/otlp-dev", "output directory")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gendev:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	src, err := profile.Parse(f)
	if err != nil {
		return err
	}
	pd := convert(src)
	bin, err := (&pprofile.ProtoMarshaler{}).MarshalProfiles(pd)
	if err != nil {
		return err
	}
	js, err := (&pprofile.JSONMarshaler{}).MarshalProfiles(pd)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	framed := binary.BigEndian.AppendUint32(nil, uint32(len(bin)))
	framed = append(framed, bin...)
	for name, data := range map[string][]byte{"cpu.otlp": bin, "cpu.otlp.json": append(js, '\n'), "cpu.framed": framed} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// convert builds a pdata Profiles from a pprof profile: one resource, one
// scope, one Profile for the last sample type (cpu/nanoseconds in a Go CPU
// profile), string labels as attributes. Every dictionary table starts
// with its zero entry, as the schema requires.
func convert(src *profile.Profile) pprofile.Profiles {
	pd := pprofile.NewProfiles()
	dict := pd.Dictionary()
	strs := map[string]int32{}
	str := func(s string) int32 {
		if i, ok := strs[s]; ok {
			return i
		}
		i := int32(dict.StringTable().Len())
		dict.StringTable().Append(s)
		strs[s] = i
		return i
	}
	str("")
	dict.MappingTable().AppendEmpty()
	dict.LocationTable().AppendEmpty()
	dict.FunctionTable().AppendEmpty()
	dict.LinkTable().AppendEmpty()
	dict.AttributeTable().AppendEmpty()
	dict.StackTable().AppendEmpty()

	mapIdx := map[uint64]int32{}
	for _, m := range src.Mapping {
		mm := dict.MappingTable().AppendEmpty()
		mm.SetMemoryStart(m.Start)
		mm.SetMemoryLimit(m.Limit)
		mm.SetFileOffset(m.Offset)
		mm.SetFilenameStrindex(str(m.File))
		mapIdx[m.ID] = int32(dict.MappingTable().Len() - 1)
	}
	funcIdx := map[uint64]int32{}
	for _, fn := range src.Function {
		ff := dict.FunctionTable().AppendEmpty()
		ff.SetNameStrindex(str(fn.Name))
		ff.SetSystemNameStrindex(str(fn.SystemName))
		ff.SetFilenameStrindex(str(fn.Filename))
		ff.SetStartLine(fn.StartLine)
		funcIdx[fn.ID] = int32(dict.FunctionTable().Len() - 1)
	}
	locIdx := map[uint64]int32{}
	for _, l := range src.Location {
		ll := dict.LocationTable().AppendEmpty()
		if l.Mapping != nil {
			ll.SetMappingIndex(mapIdx[l.Mapping.ID])
		}
		ll.SetAddress(l.Address)
		for _, ln := range l.Line {
			x := ll.Lines().AppendEmpty()
			x.SetFunctionIndex(funcIdx[ln.Function.ID])
			x.SetLine(ln.Line)
			x.SetColumn(ln.Column)
		}
		locIdx[l.ID] = int32(dict.LocationTable().Len() - 1)
	}

	rp := pd.ResourceProfiles().AppendEmpty()
	rp.Resource().Attributes().PutStr("service.name", "gengo")
	rp.Resource().Attributes().PutStr("process.runtime.name", "go")
	sp := rp.ScopeProfiles().AppendEmpty()
	sp.Scope().SetName("gendev")
	p := sp.Profiles().AppendEmpty()
	last := len(src.SampleType) - 1
	p.SampleType().SetTypeStrindex(str(src.SampleType[last].Type))
	p.SampleType().SetUnitStrindex(str(src.SampleType[last].Unit))
	if src.PeriodType != nil {
		p.PeriodType().SetTypeStrindex(str(src.PeriodType.Type))
		p.PeriodType().SetUnitStrindex(str(src.PeriodType.Unit))
	}
	p.SetPeriod(src.Period)
	p.SetTime(pcommon.Timestamp(src.TimeNanos))
	p.SetDurationNano(uint64(src.DurationNanos))
	attrIdx := map[[2]string]int32{}
	for _, s := range src.Sample {
		st := dict.StackTable().AppendEmpty()
		for _, l := range s.Location {
			st.LocationIndices().Append(locIdx[l.ID])
		}
		ss := p.Samples().AppendEmpty()
		ss.SetStackIndex(int32(dict.StackTable().Len() - 1))
		ss.Values().Append(s.Value[last])
		keys := make([]string, 0, len(s.Label))
		for k := range s.Label {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			key := [2]string{k, s.Label[k][0]}
			i, ok := attrIdx[key]
			if !ok {
				a := dict.AttributeTable().AppendEmpty()
				a.SetKeyStrindex(str(k))
				a.Value().SetStr(key[1])
				i = int32(dict.AttributeTable().Len() - 1)
				attrIdx[key] = i
			}
			ss.AttributeIndices().Append(i)
		}
	}
	return pd
}
