package officialtest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/pdata/pprofile"
)

// TestPdataReadsEBPF: pprofx's OTLP of the eBPF profiler's v1.9 file (read
// without --otlp-proto) is, as pdata reads it, what the file holds: every
// location has its profile.frame.type, every sample its thread.* and
// process.* attributes and timestamps, and mappings their GNU and htlhash
// build ids.
func TestPdataReadsEBPF(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	src := filepath.Join(root, "testdata", "otlp-dev", "ebpf-v1.9.otlp")
	out := filepath.Join(dir, "ebpf.otlp")
	if b, err := exec.Command(pprofx, "convert", src, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	ps, err := (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(read(t, out))
	if err != nil {
		t.Fatal(err)
	}
	d := ps.Dictionary()
	key := func(i int32) string { return d.StringTable().At(int(d.AttributeTable().At(int(i)).KeyStrindex())) }
	lt := d.LocationTable()
	for i := 1; i < lt.Len(); i++ {
		has := false
		for j := 0; j < lt.At(i).AttributeIndices().Len(); j++ {
			has = has || key(lt.At(i).AttributeIndices().At(j)) == "profile.frame.type"
		}
		if !has {
			t.Fatalf("location %d has no profile.frame.type", i)
		}
	}
	builds := map[string]bool{}
	mt := d.MappingTable()
	for i := 1; i < mt.Len(); i++ {
		for j := 0; j < mt.At(i).AttributeIndices().Len(); j++ {
			builds[key(mt.At(i).AttributeIndices().At(j))] = true
		}
	}
	if !builds["process.executable.build_id.gnu"] || !builds["process.executable.build_id.htlhash"] {
		t.Errorf("mapping attributes %v", builds)
	}
	samples, stamped := 0, 0
	keys := map[string]bool{}
	for r := 0; r < ps.ResourceProfiles().Len(); r++ {
		sps := ps.ResourceProfiles().At(r).ScopeProfiles()
		for s := 0; s < sps.Len(); s++ {
			for p := 0; p < sps.At(s).Profiles().Len(); p++ {
				ss := sps.At(s).Profiles().At(p).Samples()
				for i := 0; i < ss.Len(); i++ {
					samples++
					if ss.At(i).TimestampsUnixNano().Len() > 0 {
						stamped++
					}
					for j := 0; j < ss.At(i).AttributeIndices().Len(); j++ {
						keys[key(ss.At(i).AttributeIndices().At(j))] = true
					}
				}
			}
		}
	}
	if samples == 0 || stamped != samples {
		t.Errorf("%d of %d samples have timestamps", stamped, samples)
	}
	for _, k := range []string{"thread.name", "thread.id", "process.pid", "process.executable.name", "process.executable.path"} {
		if !keys[k] {
			t.Errorf("no sample has %s", k)
		}
	}
}
