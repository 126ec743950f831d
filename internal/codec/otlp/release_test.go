package otlp

import (
	"os"
	"path/filepath"
	"testing"
)

// DecodeMessages with Release gives the profiles it gives without, and
// leaves the messages' dictionaries without the tables it made the
// model's of; without Release the messages decode again the same.
func TestDecodeMessagesRelease(t *testing.T) {
	for _, name := range otlpFixtures(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := Messages(data, DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := DecodeMessages(msgs, DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, err := DecodeMessages(msgs, DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: decoded again: %v", name, err)
		}
		sameProfiles(t, name+" (decoded again)", want, again)
		got, err := DecodeMessages(msgs, DecodeOptions{Release: true})
		if err != nil {
			t.Fatalf("%s: with Release: %v", name, err)
		}
		sameProfiles(t, name+" (with Release)", want, got)
		for i, pd := range msgs {
			d := pd.GetDictionary()
			if len(d.GetLocationTable())+len(d.GetFunctionTable())+len(d.GetMappingTable())+len(d.GetStackTable()) != 0 {
				t.Errorf("%s: message %d keeps its dictionary's tables after a decode with Release", name, i)
			}
		}
	}
}

// otlpFixtures lists the OTLP fixtures: the collector's and the eBPF
// profiler's files, and the translator's outputs.
func otlpFixtures(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../../../testdata/otlp-dev/*.otlp*")
	more, _ := filepath.Glob("../../../testdata/otlp-dev/translator/*.otlp")
	files = append(append(files, more...), "../../../testdata/otlp-dev/cpu.framed")
	if len(files) < 5 {
		t.Fatalf("%d OTLP fixtures found", len(files))
	}
	return files
}
