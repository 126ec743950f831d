package diff

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// prune is pprof's Profile.RemoveUninteresting on the merged profile: with
// drop_frames set (keep_frames sparing what it matches), each location
// whose line (callers first) names a function to drop loses that line
// and those inlined into it, or is cut whole when it is its outermost
// line, and each sample's stack is cut there, leaf side, once a frame
// that is kept was met from the root. The samples are not merged again.
func (m *merger) prune(dropFrames, keepFrames string) error {
	if dropFrames == "" {
		return nil
	}
	drop, err := regexp.Compile("^(" + dropFrames + ")$")
	if err != nil {
		return fmt.Errorf("failed to compile regexp %s: %v", dropFrames, err)
	}
	var keep *regexp.Regexp
	if keepFrames != "" {
		if keep, err = regexp.Compile("^(" + keepFrames + ")$"); err != nil {
			return fmt.Errorf("failed to compile regexp %s: %v", keepFrames, err)
		}
	}
	cache := map[string]bool{}
	dropped := func(name string) bool {
		r, ok := cache[name]
		if !ok {
			f := simplifyFunc(name)
			r = drop.MatchString(f) && (keep == nil || !keep.MatchString(f))
			cache[name] = r
		}
		return r
	}
	const (
		whole   = 1 // the location goes
		beneath = 2 // the stack is cut below it
	)
	mark := make([]uint8, len(m.locs))
	for li := range m.locs {
		l := &m.locs[li]
		lines := m.lines[l.off:l.end]
		i := len(lines) - 1
		for ; i >= 0; i-- {
			if name := m.funcs[lines[i].Function].name; name != "" && dropped(name) {
				break
			}
		}
		if i < 0 {
			continue
		}
		mark[li] = beneath
		if i == len(lines)-1 {
			mark[li] |= whole
		} else {
			l.off += int32(i + 1)
		}
	}
	// Where each sample's stack starts once cut: scanned from the root,
	// at the first marked frame after one that is not.
	st := &m.stacks.st
	from := make([]int32, len(m.samples))
	cut := false
	for i := range m.samples {
		s := int(m.samples[i].stack)
		user := false
		for j := st.StackLen(s) - 1; j >= 0; j-- {
			k := mark[st.Frame(s, j)]
			if k == 0 {
				user = true
				continue
			}
			if !user {
				continue
			}
			if k&whole != 0 {
				from[i] = int32(j + 1)
			} else {
				from[i] = int32(j)
			}
			cut = cut || from[i] > 0
			break
		}
	}
	if !cut {
		return nil
	}
	out := stackTable{seed: m.seed}
	for i := range m.samples {
		s := int(m.samples[i].stack)
		f := m.frames[:0]
		for j := int(from[i]); j < st.StackLen(s); j++ {
			f = append(f, st.Frame(s, j))
		}
		m.frames = f
		m.samples[i].stack = out.add(f)
	}
	m.stacks = out
	return nil
}

var (
	reservedNames = []string{"(anonymous namespace)", "operator()"}
	bracketRx     = regexp.MustCompile(`\(anonymous namespace\)|operator\(\)|\(`)
)

// simplifyFunc is pprof's: a function's name without a leading '.' (the
// PPC ELF v1 ABI) and from its first '(' on, but for the '(' of
// "(anonymous namespace)" and "operator()".
func simplifyFunc(f string) string {
	name := strings.TrimPrefix(f, ".")
	for _, ind := range bracketRx.FindAllStringIndex(name, -1) {
		if !slices.Contains(reservedNames, name[ind[0]:ind[1]]) {
			return name[:ind[0]]
		}
	}
	return name
}
