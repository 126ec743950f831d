package otlpdev

import (
	"github.com/pprofx/pprofx/internal/model"
	pb "github.com/pprofx/pprofx/internal/otlp/otlppb/devprofilespb"
)

// compact returns a profile holding only the entries of the dictionary
// template t that the samples of profs use, in dictionary order, with the
// maps from dictionary stack and link indices to its own. The string table
// is shared (capacity-limited, so that appends copy it).
func compact(t *model.Profile, profs []*pb.Profile) (*model.Profile, []int32, []int32) {
	p := model.New()
	p.Strings = t.Strings[:len(t.Strings):len(t.Strings)]
	nst := t.Stacks.Len()
	useStack := make([]bool, nst)
	useLink := make([]bool, len(t.Links)+1)
	for _, pr := range profs {
		for _, s := range pr.Samples {
			if int(s.StackIndex) < nst {
				useStack[s.StackIndex] = true
			}
			if int(s.LinkIndex) < len(useLink) {
				useLink[s.LinkIndex] = true
			}
		}
	}
	useLoc := make([]bool, len(t.Locations))
	for i := 0; i < nst; i++ {
		if useStack[i] {
			for _, l := range t.Stacks.Get(i) {
				if l >= 0 && int(l) < len(useLoc) {
					useLoc[l] = true
				}
			}
		}
	}
	useMap := make([]bool, len(t.Mappings))
	useFun := make([]bool, len(t.Functions))
	for i, u := range useLoc {
		if !u {
			continue
		}
		l := &t.Locations[i]
		if l.Mapping >= 0 {
			useMap[l.Mapping] = true
		}
		for _, ln := range l.Lines {
			if ln.Function >= 0 {
				useFun[ln.Function] = true
			}
		}
	}
	mm := make([]int32, len(t.Mappings))
	for i, u := range useMap {
		if u {
			mm[i] = int32(len(p.Mappings))
			p.Mappings = append(p.Mappings, t.Mappings[i])
		}
	}
	fm := make([]int32, len(t.Functions))
	for i, u := range useFun {
		if u {
			fm[i] = int32(len(p.Functions))
			p.Functions = append(p.Functions, t.Functions[i])
		}
	}
	lm := make([]int32, len(t.Locations))
	for i, u := range useLoc {
		if !u {
			continue
		}
		l := t.Locations[i]
		if l.Mapping >= 0 {
			l.Mapping = mm[l.Mapping]
		}
		if len(l.Lines) > 0 {
			lines := make([]model.Line, len(l.Lines))
			for j, ln := range l.Lines {
				if ln.Function >= 0 {
					ln.Function = fm[ln.Function]
				}
				lines[j] = ln
			}
			l.Lines = lines
		}
		lm[i] = int32(len(p.Locations))
		p.Locations = append(p.Locations, l)
	}
	sm := make([]int32, nst)
	var buf []int32
	for i, u := range useStack {
		if !u {
			continue
		}
		buf = buf[:0]
		for _, l := range t.Stacks.Get(i) {
			if l >= 0 && int(l) < len(lm) {
				l = lm[l]
			}
			buf = append(buf, l)
		}
		sm[i] = p.Stacks.Add(buf)
	}
	km := make([]int32, len(useLink))
	for i := 1; i < len(useLink); i++ {
		if useLink[i] {
			km[i] = int32(len(p.Links))
			p.Links = append(p.Links, t.Links[i-1])
		}
	}
	return p, sm, km
}
