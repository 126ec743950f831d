// Package hostile generates crafted ("hostile") inputs: small files that decompress or expand to far more than they
// take, each with the command to run on it and what pprofx must answer.
// The generator is deterministic: the same case gives the same bytes.
// internal/tools/genhostile writes them out; the tests of internal/cli run
// each at a small scale in-process; scripts/bench/hostile-rss.sh runs each at
// full scale as a whole process.
package hostile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/codec/jfr"
	"github.com/pprofx/pprofx/internal/model"
)

// Case is one crafted input.
type Case struct {
	Name string // file name, e.g. pprof-samples.pb.gz
	Desc string // what it is, for tables
	// Args are pprofx's arguments; "IN" stands for the file, "OUT" for an
	// output path in a scratch folder, and "<IN" (last) gives the file as
	// standard input.
	Args []string
	// Exit is the exit status pprofx must give (-1: 0 or 1, as the
	// memory the run has allows), Msg a part of its stderr ("" when it
	// must succeed with nothing on stderr but warnings).
	Exit int
	Msg  string
	// Raw is the input's decompressed size (for a bundle: what the blocks
	// it reads decompress to, as claimed; -1: what the blocks of the file
	// generated decompress to, BundleRaw), the size the memory bound
	// (memlimit.Bound: 64 MiB + 4 x Raw) is measured against.
	Raw int64
	// Limited: the case is one of those that must end with exit 0 or 1
	// and at most 3 lines on stderr under an address-space limit of 3 GiB
	// (scripts/bench/hostile-limits.sh), where without a limit they may be
	// read.
	Limited bool
	// Early: the input is known bad from its first bytes, and must be
	// refused before the rest is read: memory stays under EarlyBound,
	// whatever the input's size.
	Early bool
	// OverBound: known to take more than memlimit.Bound(Raw) at full
	// scale: a function or location in a bundle, a pprof sample of one
	// value and no stack, take more than 4 times their bytes. The tests
	// log what these rows hold at once rather than fail on it (what they
	// allocate in all is held to 16 times the input, as every row's), and
	// docs/limits.md names them.
	OverBound bool
	// Gen writes the file.
	Gen func(w io.Writer) error
}

// EarlyBound is what a run may take in all for an input refused early.
const EarlyBound = 32 << 20

// File returns the bytes of the file of the first case named name, at
// the tests' scale (small) or full scale.
func File(name string, small bool) ([]byte, error) {
	for _, c := range Cases(small) {
		if c.Name == name {
			var b bytes.Buffer
			if err := c.Gen(&b); err != nil {
				return nil, err
			}
			return b.Bytes(), nil
		}
	}
	return nil, fmt.Errorf("no %s among the crafted inputs", name)
}

// Cases returns every case. small scales them down (tens of MB instead of
// GB once decompressed) for tests; the messages and exit statuses are the
// same.
func Cases(small bool) []Case {
	pick := func(full, little int64) int64 {
		if small {
			return little
		}
		return full
	}
	nSamples := pick(520_000_000, 10<<20) // 4 bytes each: 1.94 GiB / 40 MiB
	nStrings := pick(10_000_000, 2_000_000)
	nIDs := pick(100_000_000, 10_000_000)
	nOTLP := pick(20_000_000, 5_000_000) // 2-byte empty samples
	nJSON := pick(5_000_000, 1_000_000)
	nAttrs := pick(10_000_000, 2_000_000)
	nSlice := pick(100_000, 20_000)
	bundleSamples := pick(2_000_000, 200_000)
	zeros := pick(2<<30, 64<<20)
	capSize := pick(2<<30, 8<<20)
	mapsBytes := pick(1<<30, 32<<20)
	// Just under 2 GiB (the default --max-input-size) decompressed.
	nBigSamples := pick(520_000_000, 10<<20)      // 4 bytes each
	nBigStrings := pick(1_070_000_000, 20<<20)    // 2 bytes each
	nTableStrings := pick(134_000_000, 2_500_000) // 16 bytes each
	nEntries := pick(1_000_000, 100_000)
	nDeep := pick(3_000_000, 300_000)
	nText := pick(2_000_000, 200_000)
	nPerf := pick(1_000_000, 50_000)
	nLegacy := pick(4_000_000, 40_000)
	nJFR := int(pick(1_000_000, 50_000))

	var cs []Case
	add := func(c Case) { cs = append(cs, c) }
	// A sample of one value and no stack takes 48 bytes in the model, 12
	// times its 4: within the 14 any input may take, so it is read when
	// the machine (or the limit) has room, and held over the bound.
	add(Case{Name: "pprof-samples.pb.gz", Desc: fmt.Sprintf("pprof: %d samples of 4 bytes", nSamples),
		Args: []string{"inspect", "IN"}, Exit: -1, Msg: "more than", OverBound: true,
		Raw: 4 + 4*nSamples, Gen: gz(func(w io.Writer) error { return pprofSamples(w, nSamples) })})
	add(Case{Name: "pprof-strings.pb.gz", Desc: fmt.Sprintf("pprof: %d empty strings", nStrings),
		Args: []string{"inspect", "IN"}, Exit: 0,
		Raw: 2 * nStrings, Gen: gz(func(w io.Writer) error { return repeat(w, []byte{0x32, 0x00}, nStrings) })})
	add(Case{Name: "pprof-locids.pb.gz", Desc: fmt.Sprintf("pprof: one sample of %d location ids", nIDs),
		Args: []string{"inspect", "IN"}, Exit: 0,
		Raw: nIDs + 32, Gen: gz(func(w io.Writer) error { return pprofLocIDs(w, nIDs) })})
	deep := pprofDeep(nDeep)
	add(Case{Name: "pprof-deep.pb.gz", Desc: fmt.Sprintf("pprof: one stack of %d frames over 1000 functions", nDeep),
		Args: []string{"inspect", "IN"}, Exit: 0,
		Raw: int64(len(deep)), Gen: gz(func(w io.Writer) error { _, err := w.Write(deep); return err })})
	add(Case{Name: "otlp-empty-samples.otlp.gz", Desc: fmt.Sprintf("OTLP: %d empty samples", nOTLP),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "otlp: " + fmt.Sprint(nOTLP) + " samples",
		Raw: 2*nOTLP + 32, Gen: gz(func(w io.Writer) error { return otlpEmptySamples(w, nOTLP) })})
	add(Case{Name: "otlp-json-samples.otlp.json.gz", Desc: fmt.Sprintf("OTLP JSON: %d {} samples", nJSON),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "otlp json: " + fmt.Sprint(nJSON+5) + " objects",
		Raw: 3*nJSON + 100, Gen: gz(func(w io.Writer) error { return otlpJSONSamples(w, nJSON) })})
	add(Case{Name: "otlp-attr-table.otlp.gz", Desc: fmt.Sprintf("OTLP: %d-entry attribute table", nAttrs),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "more than 14 times the input",
		Raw: 3*nAttrs + 32, Gen: gz(func(w io.Writer) error { return otlpAttrTable(w, nAttrs) })})
	add(Case{Name: "otlp-slices.otlp.gz", Desc: fmt.Sprintf("OTLP: %d samples slicing one %d-long stack, inspect", nSlice, nSlice),
		Args: []string{"inspect", "IN"}, Exit: 0,
		Raw: 10 * nSlice, Gen: gz(func(w io.Writer) error { return otlpSlices(w, nSlice) })})
	add(Case{Name: "otlp-slices.otlp.gz", Desc: fmt.Sprintf("same, convert to pprof (%d location ids)", nSlice*nSlice),
		Args: []string{"convert", "IN", "-o", "OUT.pb.gz"}, Exit: 1, Msg: "--max-expansion",
		Raw: 10 * nSlice, Gen: gz(func(w io.Writer) error { return otlpSlices(w, nSlice) })})
	add(Case{Name: "bundle-rows.ppxb", Desc: fmt.Sprintf("bundle: 1000 sample types, %d samples sharing one row, --max-input-size 1MiB", bundleSamples),
		Args: []string{"inspect", "--max-input-size", "1MiB", "IN"}, Exit: 1, Msg: "(--max-input-size)",
		Raw: 1 << 20, Gen: func(w io.Writer) error { return bundleRows(w, int(bundleSamples)) }})
	// 2M samples of 1000 values expand to 16 GB, past the default limit;
	// the small scale's 200k (1.6 GB) are under it, so it sets a lower one.
	limitArgs, limit := []string{"inspect", "IN"}, int64(2<<30)
	if small {
		limitArgs, limit = []string{"inspect", "--max-input-size", "64MiB", "IN"}, 64<<20
	}
	add(Case{Name: "bundle-rows.ppxb", Desc: "same, --max-input-size " + model.HumanBytes(limit),
		Args: limitArgs, Exit: 1, Msg: "(--max-input-size)",
		Raw: limit, Gen: func(w io.Writer) error { return bundleRows(w, int(bundleSamples)) }})
	add(Case{Name: "bundle-zeros.ppxb", Desc: fmt.Sprintf("bundle: a section of %d zeros (zstd)", zeros-1),
		Args: []string{"inspect", "--max-input-size", fmt.Sprint(zeros / 2), "IN"}, Exit: 1, Msg: "more than the",
		Raw: zeros / 2, Gen: func(w io.Writer) error { return bundleZeros(w, zeros-1) }})
	add(Case{Name: "bundle-zeros.ppxb", Desc: "same, unpack --index 0, default --max-input-size",
		Args: []string{"unpack", "IN", "--index", "0", "-o", "OUT.pb.gz"}, Exit: 1, Msg: "bundle: profile 0",
		Raw: zeros, Gen: func(w io.Writer) error { return bundleZeros(w, zeros-1) }})
	add(Case{Name: "gzip-cap.pb.gz", Desc: fmt.Sprintf("gzip: a pprof of exactly the cap (%d)", capSize),
		Args: []string{"inspect", "--max-input-size", fmt.Sprint(capSize), "IN"}, Exit: 0,
		Raw: capSize, Gen: gz(func(w io.Writer) error { return pprofOfSize(w, capSize) })})
	add(Case{Name: "gzip-cap.pb.gz", Desc: "same, from standard input",
		Args: []string{"inspect", "--max-input-size", fmt.Sprint(capSize), "-", "<IN"}, Exit: 0,
		Raw: capSize, Gen: gz(func(w io.Writer) error { return pprofOfSize(w, capSize) })})
	add(Case{Name: "gzip-cap.pb.gz", Desc: "same, cap one byte less",
		Args: []string{"inspect", "--max-input-size", fmt.Sprint(capSize - 1), "IN"}, Exit: 1, Msg: "its size trailer says",
		Raw: capSize, Gen: gz(func(w io.Writer) error { return pprofOfSize(w, capSize) })})
	add(Case{Name: "gzip-cap.pb.gz", Desc: "same, cap one byte less, from standard input",
		Args: []string{"inspect", "--max-input-size", fmt.Sprint(capSize - 1), "-", "<IN"}, Exit: 1, Msg: "past the limit of",
		Raw: capSize, Early: true, Gen: gz(func(w io.Writer) error { return pprofOfSize(w, capSize) })})
	add(Case{Name: "gzip-zeros.gz", Desc: fmt.Sprintf("gzip: %d zeros", zeros),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "unknown format",
		Raw: zeros, Early: true, Gen: gz(func(w io.Writer) error { return repeat(w, make([]byte, 1<<16), zeros>>16) })})
	add(Case{Name: "gzip-pprof-zeros.pb.gz", Desc: fmt.Sprintf("gzip: a pprof of 4 KiB then zeros, %d bytes in all", zeros),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "pprof: byte offset 4096: bad field tag",
		Raw: zeros, Early: true, Gen: gz(func(w io.Writer) error {
			if err := pprofOfSize(w, 4096); err != nil {
				return err
			}
			if err := repeat(w, make([]byte, 1<<16), zeros>>16-1); err != nil {
				return err
			}
			_, err := w.Write(make([]byte, 1<<16-4096))
			return err
		})})
	add(Case{Name: "gzip-gzip.pb.gz.gz", Desc: "gzip inside gzip",
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "gzip inside gzip",
		Raw: 64, Early: true, Gen: gz(gz(func(w io.Writer) error { return pprofOfSize(w, 64) }))})
	// The same, from standard input and through every other reader that
	// could buffer an input whole before judging it.
	gzZeros := gz(func(w io.Writer) error { return repeat(w, make([]byte, 1<<16), zeros>>16) })
	add(Case{Name: "gzip-zeros.gz", Desc: "same, from standard input",
		Args: []string{"inspect", "-", "<IN"}, Exit: 1, Msg: "unknown format", Raw: zeros, Early: true, Gen: gzZeros})
	add(Case{Name: "gzip-zeros.gz", Desc: "same, merge from standard input",
		Args: []string{"merge", "-", "-o", "OUT.ppxb", "<IN"}, Exit: 1, Msg: "unknown format", Raw: zeros, Early: true, Gen: gzZeros})
	add(Case{Name: "gzip-zeros.gz", Desc: "same, unpack from standard input",
		Args: []string{"unpack", "-", "--index", "0", "-o", "OUT.pb.gz", "<IN"}, Exit: 1, Msg: "not a pprofx bundle", Raw: zeros, Early: true, Gen: gzZeros})
	zstZeros := zst(func(w io.Writer) error { return repeat(w, make([]byte, 1<<16), zeros>>16) })
	add(Case{Name: "zstd-zeros.zst", Desc: fmt.Sprintf("zstd: %d zeros", zeros),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "unknown format", Raw: zeros, Early: true, Gen: zstZeros})
	add(Case{Name: "zstd-zeros.zst", Desc: "same, from standard input",
		Args: []string{"inspect", "-", "<IN"}, Exit: 1, Msg: "unknown format", Raw: zeros, Early: true, Gen: zstZeros})
	// OTLP, both dialects and every layout: a valid start, then zeros.
	half := zeros / 2
	add(Case{Name: "otlp-zeros.otlp.gz", Desc: fmt.Sprintf("OTLP: a profile's start, then %d zeros", half),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "bad field tag (field number 0)", Raw: half + 32, Early: true,
		Gen: gz(func(w io.Writer) error { return otlpZeros(w, half) })})
	add(Case{Name: "otlp-zeros.otlp.gz", Desc: "same, from standard input",
		Args: []string{"inspect", "-", "<IN"}, Exit: 1, Msg: "bad field tag (field number 0)", Raw: half + 32, Early: true,
		Gen: gz(func(w io.Writer) error { return otlpZeros(w, half) })})
	add(Case{Name: "otlp-empty-samples.otlp.gz", Desc: "OTLP: a message longer than --max-input-size, from standard input",
		Args: []string{"inspect", "--max-input-size", fmt.Sprint(nOTLP), "-", "<IN"}, Exit: 1, Msg: "past the limit of",
		Raw: 2*nOTLP + 32, Early: true, Gen: gz(func(w io.Writer) error { return otlpEmptySamples(w, nOTLP) })})
	add(Case{Name: "otlpdev-framed-zeros.gz", Desc: fmt.Sprintf("OTLP collector file (framed): a message, then a frame of %d zeros", half),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "bad field tag", Raw: half + 64, Early: true,
		Gen: gz(func(w io.Writer) error { return framedZeros(w, half) })})
	add(Case{Name: "otlpdev-jsonl-zeros.jsonl.gz", Desc: fmt.Sprintf("OTLP JSON lines: a line, then %d zeros", half),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "otlp json: byte", Raw: half + 64, Early: true,
		Gen: gz(func(w io.Writer) error {
			if _, err := io.WriteString(w, `{"resourceProfiles":[],"dictionary":{"stringTable":[""]}}`+"\n"); err != nil {
				return err
			}
			return repeat(w, make([]byte, 1<<16), half>>16)
		})})
	add(Case{Name: "otlpdev-empty-samples.otlp.gz", Desc: fmt.Sprintf("OTLP v1development: %d empty samples", nOTLP),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "more than 14 times the input",
		Raw: 2*nOTLP + 32, Gen: gz(func(w io.Writer) error { return otlpDevEmptySamples(w, nOTLP) })})
	add(Case{Name: "otlpdev-empty-frames.gz", Desc: fmt.Sprintf("OTLP collector file: a message, then %d empty frames", nOTLP/2),
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "more than 14 times the input",
		Raw: 2*nOTLP + 32, Gen: gz(func(w io.Writer) error {
			msg := []byte{0x12, 0x02, 0x2a, 0x00}
			if _, err := w.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(msg))), msg...)); err != nil {
				return err
			}
			return repeat(w, []byte{0, 0, 0, 0}, nOTLP/2)
		})})
	add(Case{Name: "gzip-truncated.pb.gz", Desc: "gzip cut short",
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "gzip: truncated at byte",
		Raw: 1 << 20, Gen: truncated(gz(func(w io.Writer) error { return pprofOfSize(w, 1<<20) }))})
	// Under a memory limit: pprof inputs of just under 2 GiB, gzip and
	// zstd, and one of exactly 2 GiB.
	for _, z := range []struct {
		ext string
		enc func(func(io.Writer) error) func(io.Writer) error
	}{{"gz", gz}, {"zst", zst}} {
		// Refused under the limit; read, over the bound, where the
		// machine has room for 48 bytes a sample (pprof-samples.pb.gz).
		add(Case{Name: "limit-samples.pb." + z.ext, Desc: fmt.Sprintf("pprof (%s): %d samples of 4 bytes", z.ext, nBigSamples),
			Args: []string{"inspect", "IN"}, Exit: -1, Msg: "more than", Limited: true, OverBound: true,
			Raw: 9 + 4*nBigSamples, Gen: z.enc(func(w io.Writer) error { return pprofSamples(w, nBigSamples) })})
		add(Case{Name: "limit-strtab.pb." + z.ext, Desc: fmt.Sprintf("pprof (%s): a string table of %d 14-byte strings", z.ext, nTableStrings),
			Args: []string{"inspect", "IN"}, Exit: -1, Limited: true,
			Raw: 2 + 16*nTableStrings, Gen: z.enc(func(w io.Writer) error { return pprofStringTable(w, nTableStrings) })})
		add(Case{Name: "limit-empty-strings.pb." + z.ext, Desc: fmt.Sprintf("pprof (%s): %d empty strings", z.ext, nBigStrings),
			Args: []string{"inspect", "IN"}, Exit: -1, Limited: true,
			Raw: 2 * nBigStrings, Gen: z.enc(func(w io.Writer) error { return repeat(w, []byte{0x32, 0x00}, nBigStrings) })})
	}
	// A bundle whose tables block (zstd) expands to 2 GiB of zeros.
	add(Case{Name: "bundle-tables-zeros.ppxb", Desc: fmt.Sprintf("bundle: a tables block of %d zeros (zstd), unpack", zeros-1),
		Args: []string{"unpack", "IN", "--index", "0", "-o", "OUT.pb.gz"}, Exit: 1, Msg: "bundle: ", Limited: true,
		Raw: zeros, Gen: func(w io.Writer) error { return bundleTablesZeros(w, zeros-1) }})
	add(Case{Name: "bundle-tables-zeros.ppxb", Desc: "same, inspect",
		Args: []string{"inspect", "IN"}, Exit: 1, Msg: "bundle: ", Limited: true,
		Raw: zeros, Gen: func(w io.Writer) error { return bundleTablesZeros(w, zeros-1) }})
	// Memory: a bundle of many table entries.
	add(Case{Name: "bundle-entries.ppxb", Desc: fmt.Sprintf("bundle: %d functions and locations, inspect", nEntries),
		Args: []string{"inspect", "IN"}, Exit: 0, OverBound: true,
		Raw: -1, Gen: func(w io.Writer) error { return bundleEntries(w, int(nEntries)) }})
	add(Case{Name: "bundle-entries.ppxb", Desc: "same, unpack",
		Args: []string{"unpack", "IN", "--index", "0", "-o", "OUT.pb.gz"}, Exit: 0, OverBound: true,
		Raw: -1, Gen: func(w io.Writer) error { return bundleEntries(w, int(nEntries)) }})
	add(Case{Name: "gperftools-maps.prof.zst", Desc: fmt.Sprintf("gperftools: %d bytes of one repeated maps line (zstd)", mapsBytes),
		Args: []string{"inspect", "IN"}, Exit: 0, Msg: "repeats",
		Raw: mapsBytes, Gen: zst(func(w io.Writer) error { return gperftoolsMaps(w, mapsBytes) })})
	// Memory: the text and JSON readers, an entry in a few bytes each.
	convert := []string{"convert", "IN", "-o", "OUT.pb.gz"}
	text := func(name, desc string, overBound bool, gen func(w *bufio.Writer)) {
		g := func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<16)
			gen(bw)
			return bw.Flush()
		}
		var n counter
		_ = g(&n)
		add(Case{Name: name, Desc: desc, Args: convert, Exit: 0, OverBound: overBound, Raw: int64(n), Gen: g})
	}
	text("folded-lines.folded", fmt.Sprintf("folded: %d lines of one frame", nText), false, func(w *bufio.Writer) {
		for range nText {
			w.WriteString("a 1\n")
		}
	})
	text("speedscope-frames.json", fmt.Sprintf("speedscope: %d frames", nText), false, func(w *bufio.Writer) {
		w.WriteString(`{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}`)
		for range nText - 1 {
			w.WriteString(`,{"name":""}`)
		}
		w.WriteString(`]},"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,"samples":[[0]],"weights":[1]}]}`)
	})
	text("speedscope-samples.json", fmt.Sprintf("speedscope: %d samples of one frame", nText), false, func(w *bufio.Writer) {
		fmt.Fprintf(w, `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":%d,"samples":[[0]`, nText)
		for range nText - 1 {
			w.WriteString(`,[0]`)
		}
		w.WriteString(`],"weights":[1`)
		for range nText - 1 {
			w.WriteString(`,1`)
		}
		w.WriteString(`]}]}`)
	})
	text("cpuprofile-samples.cpuprofile", fmt.Sprintf("V8 CPU profile: %d samples of one node", nText), false, func(w *bufio.Writer) {
		fmt.Fprintf(w, `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},`+
			`{"id":2,"callFrame":{"functionName":"a","scriptId":"0","url":"","lineNumber":1,"columnNumber":1},"hitCount":0}],"startTime":0,"endTime":%d,"samples":[2`, nText)
		for range nText - 1 {
			w.WriteString(",2")
		}
		w.WriteString(`],"timeDeltas":[1`)
		for range nText - 1 {
			w.WriteString(",1")
		}
		w.WriteString("]}")
	})
	// A sample of perf script's keeps its time as a label, each its own
	// label set: 136 bytes a sample for 28 of text, within the bound when
	// converted to pprof (not to OTLP, nor compared or summed with itself).
	text("perf-samples.txt", fmt.Sprintf("perf script: %d samples of one frame", nPerf), false, func(w *bufio.Writer) {
		for i := range nPerf {
			fmt.Fprintf(w, "a 1 1.%06d: 1 c:\n\t1 a (b)\n\n", i%1000000)
		}
	})
	// A real JFR recording with one of its CPU samples repeated
	// (jfr.RepeatEvent):
	// 10 bytes of input an event, each a sample with its time: 40 bytes a
	// sample in the model and 8 its time, within the bound when converted
	// to pprof (not when summed with itself).
	jfrGen := func(w io.Writer) error {
		rec, err := moduleFile("testdata/jfr/cpu.jfr")
		if err != nil {
			return err
		}
		b, err := jfr.RepeatEvent(rec, "jdk.ExecutionSample", nJFR)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	var nj counter
	_ = jfrGen(&nj)
	add(Case{Name: "jfr-events.jfr", Desc: fmt.Sprintf("JFR: a CPU sample of the JDK's repeated %d times", nJFR),
		Args: convert, Exit: 0, Raw: int64(nj), Gen: jfrGen})
	legacy := func(w *bufio.Writer) {
		w.WriteString("heap profile: 1: 1 [1: 1] @ heap/1048576\n")
		for range nLegacy {
			w.WriteString("1: 1 [1: 1] @ 0x1\n")
		}
	}
	var n counter
	bw := bufio.NewWriter(&n)
	legacy(bw)
	bw.Flush()
	// Read a run of records at a time: within the bound when converted.
	add(Case{Name: "legacy-heap-lines.heap", Desc: fmt.Sprintf("legacy heap text: %d lines of 18 bytes", nLegacy),
		Args: convert, Exit: -1, Limited: true, Raw: int64(n),
		Gen: func(w io.Writer) error { bw := bufio.NewWriterSize(w, 1<<16); legacy(bw); return bw.Flush() }})
	return cs
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

func gz(gen func(w io.Writer) error) func(w io.Writer) error {
	return func(w io.Writer) error {
		zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
		if err != nil {
			return err
		}
		if err := gen(zw); err != nil {
			return err
		}
		return zw.Close()
	}
}

func zst(gen func(w io.Writer) error) func(w io.Writer) error {
	return func(w io.Writer) error {
		zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		if err := gen(zw); err != nil {
			return err
		}
		return zw.Close()
	}
}

// truncated writes what gen writes without its last 100 bytes.
func truncated(gen func(w io.Writer) error) func(w io.Writer) error {
	return func(w io.Writer) error {
		var buf bytes.Buffer
		if err := gen(&buf); err != nil {
			return err
		}
		_, err := w.Write(buf.Bytes()[:buf.Len()-100])
		return err
	}
}

// repeat writes b n times, in large writes.
func repeat(w io.Writer, b []byte, n int64) error {
	k := max(1, (1<<20)/len(b))
	chunk := bytes.Repeat(b, k)
	for n > 0 {
		m := min(n, int64(k))
		if _, err := w.Write(chunk[:m*int64(len(b))]); err != nil {
			return err
		}
		n -= m
	}
	return nil
}

// pprofSamples: string table "", "s"; one sample type; n samples of one
// value and no stack, 4 bytes each.
func pprofSamples(w io.Writer, n int64) error {
	head := []byte{0x32, 0x00, 0x32, 0x01, 's', 0x0a, 0x02, 0x08, 0x01}
	if _, err := w.Write(head); err != nil {
		return err
	}
	return repeat(w, []byte{0x12, 0x02, 0x10, 0x01}, n)
}

// pprofStringTable: n strings of 14 bytes ("pprofx-string-"), then
// nothing else (no string 0 of ""): 16 bytes of input each.
func pprofStringTable(w io.Writer, n int64) error {
	if _, err := w.Write([]byte{0x32, 0x00}); err != nil {
		return err
	}
	return repeat(w, append([]byte{0x32, 14}, "pprofx-string-"...), n)
}

// pprofLocIDs: one location (id 1) and one sample whose stack is location
// 1 repeated n times.
func pprofLocIDs(w io.Writer, n int64) error {
	var b []byte
	b = protowire.AppendTag(b, 6, protowire.BytesType)
	b = protowire.AppendBytes(b, nil)
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{0x08, 0x01})
	// sample { location_id: packed n x 1 }
	inner := protowire.AppendTag(nil, 1, protowire.BytesType)
	inner = protowire.AppendVarint(inner, uint64(n))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(inner))+uint64(n))
	b = append(b, inner...)
	if _, err := w.Write(b); err != nil {
		return err
	}
	return repeat(w, []byte{0x01}, n)
}

// pprofDeep: a pprof of one sample (samples/count 1) whose stack has n
// frames, location i % 1000 + 1 at frame i, each location a line of its
// own function: the stack views can write it, and each frame takes 2
// bytes of input.
func pprofDeep(n int64) []byte {
	const funcs = 1000
	var b []byte
	for _, s := range []string{"", "samples", "count"} {
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	for i := range funcs {
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		b = protowire.AppendString(b, fmt.Sprintf("fn%d", i))
	}
	// sample_type {type: 1, unit: 2}
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{0x08, 0x01, 0x10, 0x02})
	for i := uint64(1); i <= funcs; i++ {
		// function {id: i, name: i + 2}; location {id: i, line {function_id: i}}
		f := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), i)
		f = protowire.AppendVarint(protowire.AppendTag(f, 2, protowire.VarintType), i+2)
		b = protowire.AppendBytes(protowire.AppendTag(b, 5, protowire.BytesType), f)
		line := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), i)
		l := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), i)
		l = protowire.AppendBytes(protowire.AppendTag(l, 4, protowire.BytesType), line)
		b = protowire.AppendBytes(protowire.AppendTag(b, 4, protowire.BytesType), l)
	}
	var ids []byte
	for i := range n {
		ids = protowire.AppendVarint(ids, uint64(i%funcs)+1)
	}
	smp := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), ids)
	smp = protowire.AppendBytes(protowire.AppendTag(smp, 2, protowire.BytesType), []byte{0x01})
	return protowire.AppendBytes(protowire.AppendTag(b, 2, protowire.BytesType), smp)
}

// pprofOfSize: a valid pprof of exactly size bytes (>= 8): string table
// "", then one string that fills the rest.
func pprofOfSize(w io.Writer, size int64) error {
	head := []byte{0x32, 0x00, 0x32}
	for l := size - 3 - 1; l > 0; l-- {
		v := protowire.AppendVarint(nil, uint64(l))
		if int64(len(head)+len(v))+l == size {
			if _, err := w.Write(append(head, v...)); err != nil {
				return err
			}
			return repeat(w, []byte{'p'}, l)
		}
	}
	return fmt.Errorf("no pprof of %d bytes", size)
}

// otlpWrap writes ProfilesData{resource_profiles{scope_profiles{profiles{
// profile{ <body> }}}}} where the profile's body is head then body.
func otlpWrap(w io.Writer, head []byte, bodyLen int64, body func(w io.Writer) error) error {
	n := uint64(len(head)) + uint64(bodyLen)
	var pre []byte
	// From the innermost length out, each level is tag + length + what it holds.
	levels := []protowire.Number{8, 2, 2, 1} // profile, profiles, scope_profiles, resource_profiles
	for _, num := range levels {
		var lvl []byte
		lvl = protowire.AppendTag(lvl, num, protowire.BytesType)
		lvl = protowire.AppendVarint(lvl, n)
		pre = append(lvl, pre...)
		n += uint64(len(lvl))
	}
	if _, err := w.Write(append(pre, head...)); err != nil {
		return err
	}
	return body(w)
}

var otlpStrings = []byte{0x32, 0x00} // string_table: [""]

func otlpEmptySamples(w io.Writer, n int64) error {
	return otlpWrap(w, otlpStrings, 2*n, func(w io.Writer) error { return repeat(w, []byte{0x12, 0x00}, n) })
}

func otlpAttrTable(w io.Writer, n int64) error {
	return otlpWrap(w, otlpStrings, 3*n, func(w io.Writer) error { return repeat(w, []byte{0x82, 0x01, 0x00}, n) })
}

// otlpSlices: one location, location_indices of n zeros, one sample type
// and n samples each slicing all of location_indices.
func otlpSlices(w io.Writer, n int64) error {
	var head []byte
	head = append(head, 0x32, 0x00, 0x32, 0x01, 's') // strings "", "s"
	head = protowire.AppendTag(head, 1, protowire.BytesType)
	head = protowire.AppendBytes(head, []byte{0x08, 0x01})
	head = protowire.AppendTag(head, 4, protowire.BytesType) // location {}
	head = protowire.AppendBytes(head, nil)
	head = protowire.AppendTag(head, 15, protowire.BytesType)
	head = protowire.AppendBytes(head, make([]byte, n))
	var s []byte
	s = protowire.AppendTag(s, 8, protowire.VarintType)
	s = protowire.AppendVarint(s, uint64(n))
	s = protowire.AppendTag(s, 2, protowire.VarintType)
	s = protowire.AppendVarint(s, 1)
	sample := protowire.AppendTag(nil, 2, protowire.BytesType)
	sample = protowire.AppendBytes(sample, s)
	return otlpWrap(w, head, n*int64(len(sample)), func(w io.Writer) error { return repeat(w, sample, n) })
}

// otlpZeros: a ProfilesData whose scope_profiles holds a profile of 100k
// strings (past the 64 KiB detection looks at), then n zeros.
func otlpZeros(w io.Writer, n int64) error {
	var prof []byte
	prof = append(prof, otlpStrings...)
	for i := 0; i < 100_000; i++ {
		prof = append(prof, 0x32, 0x01, 's')
	}
	c := protowire.AppendTag(nil, 8, protowire.BytesType) // container.profile
	c = protowire.AppendBytes(c, prof)
	sp := protowire.AppendTag(nil, 2, protowire.BytesType) // scope_profiles.profiles
	sp = protowire.AppendBytes(sp, c)
	spLen := uint64(len(sp)) + uint64(n)
	rp := protowire.AppendTag(nil, 2, protowire.BytesType) // resource_profiles.scope_profiles
	rp = protowire.AppendVarint(rp, spLen)
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(rp))+spLen)
	b = append(append(b, rp...), sp...)
	if _, err := w.Write(b); err != nil {
		return err
	}
	return repeat(w, make([]byte, 1<<16), n>>16)
}

// otlpDevEmptySamples: a v1development ProfilesData (dictionary first)
// of one profile of n empty samples, 2 bytes each.
func otlpDevEmptySamples(w io.Writer, n int64) error {
	size := uint64(2 * n)
	var pre []byte
	for _, num := range []protowire.Number{2, 2, 1} { // profiles, scope_profiles, resource_profiles
		lvl := protowire.AppendTag(nil, num, protowire.BytesType)
		lvl = protowire.AppendVarint(lvl, size)
		pre = append(lvl, pre...)
		size += uint64(len(lvl))
	}
	if _, err := w.Write(append([]byte{0x12, 0x02, 0x2a, 0x00}, pre...)); err != nil {
		return err
	}
	return repeat(w, []byte{0x12, 0x00}, n)
}

// framedZeros: the collector file exporter's framing; one v1development
// ProfilesData (a dictionary of one string, one empty profile), then a
// frame of n bytes: a resource_profiles of zeros.
func framedZeros(w io.Writer, n int64) error {
	msg := []byte{0x12, 0x02, 0x2a, 0x00, 0x0a, 0x04, 0x12, 0x02, 0x12, 0x00}
	b := binary.BigEndian.AppendUint32(nil, uint32(len(msg)))
	b = append(b, msg...)
	body := protowire.AppendTag(nil, 1, protowire.BytesType)
	body = protowire.AppendVarint(body, uint64(n))
	b = binary.BigEndian.AppendUint32(b, uint32(int64(len(body))+n))
	if _, err := w.Write(append(b, body...)); err != nil {
		return err
	}
	return repeat(w, make([]byte, 1<<16), n>>16)
}

func otlpJSONSamples(w io.Writer, n int64) error {
	if _, err := io.WriteString(w, `{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"profile":{"stringTable":[""],"sample":[{}`); err != nil {
		return err
	}
	if err := repeat(w, []byte(",{}"), n-1); err != nil {
		return err
	}
	_, err := io.WriteString(w, "]}}]}]}]}\n")
	return err
}

// bundleRows writes a bundle (with pprofx's own writer) of one profile of
// 1000 sample types and n samples that share one stack, one label set and
// one row of values.
func bundleRows(w io.Writer, n int) error {
	b := model.NewBuilder()
	p := b.P
	for i := 0; i < 1000; i++ {
		p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: b.String(fmt.Sprintf("t%d", i)), Unit: b.String("count")})
	}
	p.Functions = []model.Function{{Name: b.String("main")}}
	p.AddLocation(model.Location{Address: 0x1000, Mapping: model.NoMapping}, model.Line{Function: 0, Line: 1})
	stack := b.Stack([]int32{0})
	vals := make([]int64, 1000)
	for i := range vals {
		vals[i] = int64(i + 1)
	}
	p.Samples = make([]model.Sample, n)
	for i := range p.Samples {
		p.Samples[i] = model.NewSample(stack, vals)
	}
	bw := bundle.NewWriter(w, bundle.WriterOptions{})
	if err := bw.Add(bundle.Entry{Name: "rows"}, p); err != nil {
		return err
	}
	return bw.Close()
}

// bundleZeros writes a bundle of one small profile whose section is
// replaced by a zstd frame of n zeros, the index claiming n raw bytes.
func bundleZeros(w io.Writer, n int64) error {
	var orig bytes.Buffer
	p := model.New()
	p.SampleTypes = []model.ValueType{{Type: 1, Unit: 2}}
	p.Strings = append(p.Strings, "samples", "count")
	bw := bundle.NewWriter(&orig, bundle.WriterOptions{})
	if err := bw.Add(bundle.Entry{Name: "zeros"}, p); err != nil {
		return err
	}
	if err := bw.Close(); err != nil {
		return err
	}
	data := orig.Bytes()
	foot := data[len(data)-64:]
	var u [6]uint64
	for i := range u {
		u[i] = binary.LittleEndian.Uint64(foot[8*i:])
	}
	tablesOff, tablesLen, indexOff, indexLen := u[0], u[1], u[3], u[4]
	zd, err := zstd.NewReader(nil)
	if err != nil {
		return err
	}
	defer zd.Close()
	index, err := zd.DecodeAll(data[indexOff:indexOff+indexLen], nil)
	if err != nil {
		return err
	}
	section, err := zd.DecodeAll(data[12:tablesOff], nil)
	if err != nil {
		return err
	}
	// The index ends with the one entry's section_len and section_raw.
	tail := binary.AppendUvarint(binary.AppendUvarint(nil, tablesOff-12), uint64(len(section)))
	if !bytes.HasSuffix(index, tail) {
		return fmt.Errorf("unexpected index layout")
	}
	var zeros bytes.Buffer
	zw, err := zstd.NewWriter(&zeros, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithWindowSize(1<<20),
		zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	if err != nil {
		return err
	}
	if err := repeat(zw, make([]byte, 1<<16), n>>16); err != nil {
		return err
	}
	if _, err := zw.Write(make([]byte, n&(1<<16-1))); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	newIndex := append(index[:len(index)-len(tail)], binary.AppendUvarint(binary.AppendUvarint(nil, uint64(zeros.Len())), uint64(n))...)
	ze, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	if err != nil {
		return err
	}
	indexBlock := ze.EncodeAll(newIndex, nil)
	ze.Close()

	var out bytes.Buffer
	out.Write(data[:12])
	out.Write(zeros.Bytes())
	newTablesOff := uint64(out.Len())
	out.Write(data[tablesOff : tablesOff+tablesLen])
	newIndexOff := uint64(out.Len())
	out.Write(indexBlock)
	var f [64]byte
	for i, v := range []uint64{newTablesOff, tablesLen, u[2], newIndexOff, uint64(len(indexBlock)), uint64(len(newIndex))} {
		binary.LittleEndian.PutUint64(f[8*i:], v)
	}
	copy(f[48:52], foot[48:52])
	binary.LittleEndian.PutUint32(f[52:], crc32.ChecksumIEEE(f[:52]))
	copy(f[56:], foot[56:])
	out.Write(f[:])
	_, err = w.Write(out.Bytes())
	return err
}

// gperftoolsMaps: a 64-bit little-endian CPU profile of one record, then a
// maps text of one executable line repeated to size bytes.
func gperftoolsMaps(w io.Writer, size int64) error {
	var b []byte
	for _, v := range []uint64{0, 3, 0, 10000, 0, 1, 1, 0x401000, 0, 1, 0} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	line := "00400000-00452000 r-xp 00000000 08:02 173521                             /usr/bin/hostile-daemon\n"
	if strings.Count(line, "\n") != 1 {
		panic("line")
	}
	return repeat(w, []byte(line), size/int64(len(line)))
}

// BundleRaw is what the blocks of a bundle decompress to: its sections,
// tables and index.
func BundleRaw(data []byte) (int64, error) {
	if len(data) < 12+64 {
		return 0, fmt.Errorf("not a bundle")
	}
	foot := data[len(data)-64:]
	tablesOff := binary.LittleEndian.Uint64(foot[0:])
	tablesRaw := binary.LittleEndian.Uint64(foot[16:])
	indexRaw := binary.LittleEndian.Uint64(foot[40:])
	if tablesOff < 12 || tablesOff > uint64(len(data)) {
		return 0, fmt.Errorf("corrupt footer")
	}
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return 0, err
	}
	defer zd.Close()
	sections, err := zd.DecodeAll(data[12:tablesOff], nil)
	if err != nil {
		return 0, err
	}
	return int64(len(sections)) + int64(tablesRaw) + int64(indexRaw), nil
}

// bundleTablesZeros writes a bundle of one small profile whose tables
// block is replaced by a zstd frame of n zeros, the footer claiming n raw
// bytes.
func bundleTablesZeros(w io.Writer, n int64) error {
	var orig bytes.Buffer
	p := model.New()
	p.SampleTypes = []model.ValueType{{Type: 1, Unit: 2}}
	p.Strings = append(p.Strings, "samples", "count")
	bw := bundle.NewWriter(&orig, bundle.WriterOptions{})
	if err := bw.Add(bundle.Entry{Name: "zeros"}, p); err != nil {
		return err
	}
	if err := bw.Close(); err != nil {
		return err
	}
	data := orig.Bytes()
	foot := data[len(data)-64:]
	var u [6]uint64
	for i := range u {
		u[i] = binary.LittleEndian.Uint64(foot[8*i:])
	}
	tablesOff, tablesLen, indexOff, indexLen := u[0], u[1], u[3], u[4]
	var zeros bytes.Buffer
	zw, err := zstd.NewWriter(&zeros, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithWindowSize(1<<20),
		zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	if err != nil {
		return err
	}
	if err := repeat(zw, make([]byte, 1<<16), n>>16); err != nil {
		return err
	}
	if _, err := zw.Write(make([]byte, n&(1<<16-1))); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	var out bytes.Buffer
	out.Write(data[:tablesOff])
	out.Write(zeros.Bytes())
	newIndexOff := uint64(out.Len())
	out.Write(data[indexOff : indexOff+indexLen])
	var f [64]byte
	for i, v := range []uint64{tablesOff, uint64(zeros.Len()), uint64(n), newIndexOff, indexLen, u[5]} {
		binary.LittleEndian.PutUint64(f[8*i:], v)
	}
	_ = tablesLen
	copy(f[48:52], foot[48:52])
	binary.LittleEndian.PutUint32(f[52:], crc32.ChecksumIEEE(f[:52]))
	copy(f[56:], foot[56:])
	out.Write(f[:])
	_, err = w.Write(out.Bytes())
	return err
}

// bundleEntries writes a bundle (with pprofx's own writer) of one profile
// of n distinct functions, each at its own location, and n/1000 samples of
// 1000 locations each.
func bundleEntries(w io.Writer, n int) error {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	file := b.String("hostile.go")
	p.Functions = make([]model.Function, n)
	p.Locations = make([]model.Location, 0, n)
	p.Lines = make([]model.Line, 0, n)
	for i := range n {
		p.Functions[i] = model.Function{Name: b.String(fmt.Sprintf("f%07d", i)), Filename: file}
		p.AddLocation(model.Location{Address: 0x1000 + uint64(i)*4, Mapping: model.NoMapping}, model.Line{Function: int32(i), Line: int64(i%1000 + 1)})
	}
	frames := make([]int32, 1000)
	for s := 0; s < n/1000; s++ {
		for j := range frames {
			frames[j] = int32(s*1000 + j)
		}
		p.Samples = append(p.Samples, model.NewSample(b.Stack(frames), []int64{int64(s + 1)}))
	}
	bw := bundle.NewWriter(w, bundle.WriterOptions{})
	if err := bw.Add(bundle.Entry{Name: "entries"}, p); err != nil {
		return err
	}
	return bw.Close()
}
