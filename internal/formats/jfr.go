package formats

import (
	"bufio"
	"fmt"
	"sort"
	"strings"

	"github.com/pprofx/pprofx/internal/codec/jfr"
	"github.com/pprofx/pprofx/internal/detect"
)

func init() {
	registerReader(detect.JFR, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		p, info, err := jfr.Decode(r, jfr.Options{Salvage: opts.Salvage, Warn: opts.Warn})
		if err != nil {
			return err
		}
		in.Items = []Item{{Profile: p}}
		in.Layout = "JFR " + info.Version
		in.Facts = jfrFacts(info)
		return nil
	})
}

// jfrFacts is what inspect shows of a recording beyond its profile.
func jfrFacts(info *jfr.Info) [][2]string {
	names := make([]string, 0, len(info.Events))
	for n := range info.Events {
		names = append(names, n)
	}
	sort.Strings(names)
	var ev []string
	for _, n := range names {
		ev = append(ev, fmt.Sprintf("%s %d", n, info.Events[n]))
	}
	facts := [][2]string{
		{"chunks", fmt.Sprint(info.Chunks)},
		{"events read", strings.Join(ev, ", ")},
	}
	if info.Salvaged {
		facts = append(facts, [2]string{"salvaged", "yes: a cut or broken chunk and what followed were dropped"})
	}
	return facts
}
