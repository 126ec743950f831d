package otlp

import (
	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// compact returns a profile holding only the locations, functions, stacks
// and links of the dictionary template t that the samples of profs use, in
// dictionary order; as mappings, those listed (dictionary indices, from 1;
// pprofx's writer lists them, see AttrMappings) or else every mapping of
// the dictionary (pprof keeps mappings no location uses); with the maps
// from dictionary stack and link indices to its own. The string table is
// shared (capacity-limited, so that appends copy it).
func compact(t *model.Profile, profs []*pb.Profile, mappings []int32) (*model.Profile, []int32, []int32) {
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
	var fr []int32
	for i := 0; i < nst; i++ {
		if useStack[i] {
			fr = t.Stacks.Append(fr[:0], i)
			for _, l := range fr {
				if l >= 0 && int(l) < len(useLoc) {
					useLoc[l] = true
				}
			}
		}
	}
	useFun := make([]bool, len(t.Functions))
	nlines := 0
	for i, u := range useLoc {
		if !u {
			continue
		}
		lines := t.LocationLines(i)
		nlines += len(lines)
		for _, ln := range lines {
			if ln.Function >= 0 {
				useFun[ln.Function] = true
			}
		}
	}
	mm := make([]int32, len(t.Mappings))
	if mappings == nil {
		for i := range t.Mappings {
			mappings = append(mappings, int32(i+1))
		}
	}
	for i := range mm {
		mm[i] = -1
	}
	for _, x := range mappings {
		mm[x-1] = int32(len(p.Mappings))
		p.Mappings = append(p.Mappings, t.Mappings[x-1])
	}
	for i, u := range useLoc {
		// A location whose mapping the list leaves out (not pprofx's
		// writing) brings it in.
		if m := t.Locations[i].Mapping; u && m >= 0 && mm[m] == -1 {
			mm[m] = int32(len(p.Mappings))
			p.Mappings = append(p.Mappings, t.Mappings[m])
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
	if nlines > 0 {
		p.Lines = make([]model.Line, 0, nlines)
	}
	for i, u := range useLoc {
		if !u {
			continue
		}
		l := t.Locations[i]
		if l.Mapping >= 0 {
			l.Mapping = mm[l.Mapping]
		}
		l.FirstLine, l.NumLines = 0, 0
		if lines := t.LinesOf(&t.Locations[i]); len(lines) > 0 {
			l.FirstLine, l.NumLines = uint32(len(p.Lines)), uint32(len(lines))
			for j, ln := range lines {
				if ln.Function >= 0 {
					ln.Function = fm[ln.Function]
				}
				p.Lines = append(p.Lines, ln)
				p.SetColumn(uint32(len(p.Lines)-1), t.ColumnOf(&t.Locations[i], j))
			}
		}
		lm[i] = int32(len(p.Locations))
		p.Locations = append(p.Locations, l)
		p.SetLocationAttrs(int(lm[i]), t.LocationAttrs(i))
	}
	sm := make([]int32, nst)
	var buf []int32
	for i, u := range useStack {
		if !u {
			continue
		}
		buf = t.Stacks.Append(buf[:0], i)
		for k, l := range buf {
			if l >= 0 && int(l) < len(lm) {
				buf[k] = lm[l]
			}
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
