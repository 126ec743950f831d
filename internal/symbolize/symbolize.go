// Package symbolize turns a profile's raw addresses into functions, files,
// lines and inline frames from local ELF binaries and their DWARF, and
// gives mappings the build ids of the binaries found for them. It is a
// transformation of the model (model in, the same model out), not a codec.
//
// Concerns, one file each: elffile.go (ELF headers, build-id notes, how a
// mapping matches a binary and runtime addresses become file addresses),
// locate.go (where binaries and separate debug files are looked for),
// symtab.go (.symtab and .dynsym), symbols.go (which table answers, and
// Go's pclntab), names.go (C++ demangling). The DWARF is read by package
// dwarfread (inline trees, line tables, sections read lazily); package
// catch turns the panics bad ELF or DWARF data may raise into errors.
package symbolize

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/pprofx/pprofx/internal/model"
)

// Mode says how much is done.
type Mode int

// Modes, as --symbolize names them.
const (
	// Auto symbolizes from the binaries found; a mapping whose binary is
	// missing, or does not match, or cannot be read, is left as it is,
	// silently.
	Auto Mode = iota
	// Local is Auto with a warning for each mapping left unsymbolized,
	// saying why (naming each file found that does not match).
	Local
	// None only gives mappings their binaries' build ids.
	None
	// Off looks at no binary: the profile is left exactly as it is.
	Off
)

// ParseMode reads a --symbolize value.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "auto", "":
		return Auto, nil
	case "local":
		return Local, nil
	case "none":
		return None, nil
	case "off":
		return Off, nil
	}
	return 0, fmt.Errorf("--symbolize %q: want auto, local, none or off", s)
}

func (m Mode) String() string {
	return [...]string{"auto", "local", "none", "off"}[m]
}

// Options control Symbolize.
type Options struct {
	Mode Mode
	// Dirs are searched for binaries, in order, before a mapping's own
	// path: --symbols-dir, then PPROF_BINARY_PATH (see SearchDirs).
	Dirs []string
	// DebugRoots hold separate debug files (.build-id/xx/rest.debug, and
	// by path); nil means DefaultDebugRoot.
	DebugRoots []string
	// NoOriginalPath: do not look at the path a mapping names, only in
	// Dirs (tests, and profiles from another machine).
	NoOriginalPath bool
	// Force symbolizes mappings that already have functions, replacing
	// their locations' lines.
	Force bool
	// Warn is told what could not be done, and why (nil: nothing is told).
	Warn func(string)
}

// SearchDirs is the search path: the --symbols-dir values, then the
// entries of PPROF_BINARY_PATH (a list separated like PATH), as pprof
// reads it: unset or empty, it is $HOME/pprof/binaries.
func SearchDirs(flagDirs []string, env string) []string {
	dirs := append([]string(nil), flagDirs...)
	if env == "" {
		if home := os.Getenv("HOME"); home != "" {
			env = filepath.Join(home, "pprof", "binaries")
		}
	}
	for _, d := range filepath.SplitList(env) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// Symbolizer holds the binaries opened for one or more profiles, so that
// each is read once.
type Symbolizer struct {
	opts       Options
	dirs       []string
	debugRoots []string
	noOriginal bool
	files      map[string]openResult
	debug      map[*binary]*binary
	seenWarn   map[string]bool
}

type openResult struct {
	b   *binary
	err error
}

// New returns a Symbolizer; Close releases its files.
func New(o Options) *Symbolizer {
	s := &Symbolizer{opts: o, dirs: o.Dirs, debugRoots: o.DebugRoots, noOriginal: o.NoOriginalPath,
		files: map[string]openResult{}, debug: map[*binary]*binary{}, seenWarn: map[string]bool{}}
	if s.debugRoots == nil {
		s.debugRoots = []string{DefaultDebugRoot}
	}
	return s
}

// Close closes every file the Symbolizer opened.
func (s *Symbolizer) Close() {
	for _, r := range s.files {
		if r.b != nil {
			r.b.close()
		}
	}
	s.files = map[string]openResult{}
}

// Symbolize symbolizes p with a Symbolizer of its own.
func Symbolize(p *model.Profile, o Options) {
	s := New(o)
	defer s.Close()
	s.Symbolize(p)
}

func (s *Symbolizer) warnf(format string, args ...any) {
	if s.opts.Warn == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if !s.seenWarn[msg] {
		s.seenWarn[msg] = true
		s.opts.Warn(msg)
	}
}

func (s *Symbolizer) open(path string) (*binary, error) {
	if r, ok := s.files[path]; ok {
		return r.b, r.err
	}
	b, err := openBinary(path)
	s.files[path] = openResult{b, err}
	return b, err
}

// unsymbolizable names what no file on disk stands for: [vdso], [stack],
// anonymous and device memory.
func unsymbolizable(file string) bool {
	base := filepath.Base(file)
	return file == "" || strings.HasPrefix(base, "[") || strings.HasPrefix(base, "linux-vdso") ||
		strings.HasPrefix(file, "/dev/") || file == "//anon" || strings.HasPrefix(file, "/memfd:") ||
		strings.HasPrefix(file, "/SYSV")
}

// find returns the binary for mapping m: the first candidate that matches
// it (same build id; or, where the profile has none, load segments that fit
// the mapping). Each candidate found but not matching is named in the
// returned reasons.
func (s *Symbolizer) find(m *model.Mapping, file, buildID string) (*binary, []string) {
	var why []string
	for _, c := range s.candidates(file, buildID) {
		b, err := s.open(c)
		if err != nil {
			if !os.IsNotExist(err) {
				why = append(why, fmt.Sprintf("%s: %v", c, err))
			}
			continue
		}
		if buildID != "" {
			if b.buildID == buildID || b.goID == buildID {
				return b, why
			}
			id := b.buildID
			if id == "" {
				id = b.goID
			}
			if id == "" {
				id = "none"
			}
			why = append(why, fmt.Sprintf("%s: build id %s, not the profile's %s", c, id, buildID))
			continue
		}
		if err := b.fits(m.Start, m.Limit, m.Offset); err != nil {
			why = append(why, fmt.Sprintf("%s: %v", c, err))
			continue
		}
		return b, why
	}
	return nil, why
}

// Symbolize symbolizes p in place: each mapping's binary is looked for and
// checked; a mapping whose binary is found gets its build id (if it has
// none) and, unless the mode is None, its locations get lines.
func (s *Symbolizer) Symbolize(p *model.Profile) {
	if s.opts.Mode == Off {
		return
	}
	locs := make([][]int, len(p.Mappings))
	for i := range p.Locations {
		if m := p.Locations[i].Mapping; m >= 0 && int(m) < len(p.Mappings) {
			locs[m] = append(locs[m], i)
		}
	}
	var in *interner
	var jobs []*job
	for mi := range p.Mappings {
		m := &p.Mappings[mi]
		file := p.String(m.File)
		if unsymbolizable(file) {
			continue
		}
		buildID := p.String(m.BuildID)
		// A file deleted after it was mapped: /proc/PID/maps says so.
		b, why := s.find(m, strings.TrimSuffix(file, " (deleted)"), buildID)
		if b == nil {
			if s.opts.Mode != Local {
				// auto and none are silent about binaries not found or
				// not matching: a profile from another machine is normal.
				continue
			}
			if len(why) > 0 {
				s.warnf("%s: no matching binary: %s", file, strings.Join(why, "; "))
			} else if len(locs[mi]) > 0 {
				s.warnf("%s: not symbolized: no such file at its path or in the symbols directories", file)
			}
			continue
		}
		if buildID == "" {
			id := b.buildID
			if id == "" {
				id = b.goID
			}
			if id != "" {
				if in == nil {
					in = newInterner(p)
				}
				m.BuildID = in.str(id)
				m.BuildIDKind = 0
			}
		}
		if s.opts.Mode == None || len(locs[mi]) == 0 {
			continue
		}
		if !s.opts.Force && (m.HasFunctions || m.HasFilenames || m.HasLineNumbers) {
			continue
		}
		jobs = append(jobs, s.prepare(p, mi, b, file, locs[mi]))
	}
	s.resolve(jobs)
	growLines(p, jobs)
	for _, j := range jobs {
		if in == nil {
			in = newInterner(p)
		}
		s.apply(p, j, in)
	}
}

// job is the symbolization of one mapping from one binary.
type job struct {
	mi        int
	b, debug  *binary
	file      string
	locs      []int    // the mapping's locations
	fileAddrs []uint64 // their file addresses
	okAddr    []bool   // whether each has one (in an executable segment)
	addrs     []uint64 // the distinct file addresses, sorted
	// results of resolve
	t      *tables
	frames [][]frame
	src    source
	err    error
}

// prepare turns a mapping's locations into file addresses, and finds the
// binary's separate debug file (which opens files, so it is done here,
// not in resolve).
func (s *Symbolizer) prepare(p *model.Profile, mi int, b *binary, file string, locs []int) *job {
	m := &p.Mappings[mi]
	debug, ok := s.debug[b]
	if !ok {
		debug = s.findDebug(b)
		s.debug[b] = debug
	}
	j := &job{mi: mi, b: b, debug: debug, file: file, locs: locs,
		fileAddrs: make([]uint64, len(locs)), okAddr: make([]bool, len(locs))}
	for k, li := range locs {
		if a, ok := b.fileAddr(p.Locations[li].Address, m.Start, m.Offset); ok && b.isExec(a) {
			j.fileAddrs[k], j.okAddr[k] = a, true
			j.addrs = append(j.addrs, a)
		}
	}
	j.addrs = sortedDistinct(j.addrs)
	return j
}

// resolve reads each binary's tables and answers its jobs' addresses, the
// binaries on as many goroutines as there are processors: a binary (and
// its debug file, which two copies of one binary share) is read by one
// goroutine only.
func (s *Symbolizer) resolve(jobs []*job) {
	byBinary := map[*binary][]*job{}
	var order []*binary
	for _, j := range jobs {
		k := j.b
		if j.debug != nil {
			k = j.debug
		}
		if byBinary[k] == nil {
			order = append(order, k)
		}
		byBinary[k] = append(byBinary[k], j)
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, b := range order {
		wg.Add(1)
		sem <- struct{}{}
		go func(js []*job) {
			defer func() { <-sem; wg.Done() }()
			for _, j := range js {
				j.t = j.b.loadTables(j.debug)
				j.frames, j.src, j.err = j.t.lookup(j.addrs)
			}
		}(byBinary[b])
	}
	wg.Wait()
}

// apply writes a job's answers into the profile and says what went wrong.
func (s *Symbolizer) apply(p *model.Profile, j *job, in *interner) {
	m := &p.Mappings[j.mi]
	file, t, b := j.file, j.t, j.b
	if t.dwErr != nil {
		s.warnf("%s: DWARF not read (%v); using the symbol table", file, t.dwErr)
	}
	if j.err != nil {
		s.warnf("%s: DWARF: %v; addresses it did not answer use the symbol table", file, j.err)
	}
	if t.dw != nil && t.dw.LineErr() != nil {
		s.warnf("%s: DWARF line table: %v; some addresses have no file and line", file, t.dw.LineErr())
	}
	if j.src == srcNone {
		if s.opts.Mode == Local {
			s.warnf("%s: not symbolized: %s has no DWARF, Go line table or symbols for its addresses", file, b.path)
		}
		return
	}
	missed := 0
	for k, li := range j.locs {
		fr := j.framesOf(k)
		if len(fr) == 0 {
			missed++
			continue
		}
		// The location's new lines are the next len(fr) of the table
		// (growLines made room for them).
		l := &p.Locations[li]
		l.FirstLine, l.NumLines = uint32(len(p.Lines)), uint32(len(fr))
		l.IsFolded = false
		for _, f := range fr {
			if f.Name != "" {
				m.HasFunctions = true
			}
			if f.File != "" {
				m.HasFilenames = true
			}
			if f.Line != 0 {
				m.HasLineNumbers = true
			}
			p.Lines = append(p.Lines, model.Line{Function: in.function(f), Line: f.Line})
			p.SetColumn(uint32(len(p.Lines)-1), f.Column)
		}
	}
	if j.src == srcDWARF {
		m.HasInlineFrames = true
	}
	if missed > 0 && s.opts.Mode == Local {
		s.warnf("%s: %d of %d addresses have no symbol in %s", file, missed, len(j.locs), b.path)
	}
}

// framesOf returns the frames of location k of the job's: nil when it has
// no file address or the binary no answer for it.
func (j *job) framesOf(k int) []frame {
	if !j.okAddr[k] || j.src == srcNone {
		return nil
	}
	return j.frames[searchU64(j.addrs, j.fileAddrs[k])]
}

// growLines makes room in p's table of lines, at once, for the lines the
// jobs give locations: a location's lines are replaced by new ones at its
// end, never written where they are (locations may share them).
func growLines(p *model.Profile, jobs []*job) {
	n := 0
	for _, j := range jobs {
		for k := range j.locs {
			n += len(j.framesOf(k))
		}
	}
	if n == 0 || cap(p.Lines)-len(p.Lines) >= n {
		return
	}
	grown := make([]model.Line, len(p.Lines), len(p.Lines)+n)
	copy(grown, p.Lines)
	p.Lines = grown
}

func searchU64(a []uint64, v uint64) int {
	lo, hi := 0, len(a)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if a[h] < v {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// interner adds strings and functions to a profile, reusing equal ones.
type interner struct {
	p       *model.Profile
	strs    map[string]int32
	funcs   map[model.Function]int32
	display map[string]int32 // a system name's display name, demangled once
}

func newInterner(p *model.Profile) *interner {
	in := &interner{p: p, strs: make(map[string]int32, len(p.Strings)), funcs: make(map[model.Function]int32, len(p.Functions)),
		display: map[string]int32{}}
	if len(p.Strings) == 0 {
		p.Strings = []string{""}
	}
	for i, s := range p.Strings {
		if _, ok := in.strs[s]; !ok {
			in.strs[s] = int32(i)
		}
	}
	for i, f := range p.Functions {
		if _, ok := in.funcs[f]; !ok {
			in.funcs[f] = int32(i)
		}
	}
	return in
}

func (in *interner) str(s string) int32 {
	if i, ok := in.strs[s]; ok {
		return i
	}
	i := int32(len(in.p.Strings))
	in.p.Strings = append(in.p.Strings, s)
	in.strs[s] = i
	return i
}

func (in *interner) function(f frame) int32 {
	name, ok := in.display[f.Name]
	if !ok {
		name = in.str(displayName(f.Name))
		in.display[f.Name] = name
	}
	fn := model.Function{Name: name, SystemName: in.str(f.Name), Filename: in.str(f.File), StartLine: f.StartLine}
	if i, ok := in.funcs[fn]; ok {
		return i
	}
	i := int32(len(in.p.Functions))
	in.p.Functions = append(in.p.Functions, fn)
	in.funcs[fn] = i
	return i
}
