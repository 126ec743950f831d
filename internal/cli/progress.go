package cli

import (
	"fmt"
	"sync"
	"time"
)

// status is the one-line progress shown on stderr during long multi-file
// work, only when stderr is a terminal. Warnings clear it before they print.
type status struct {
	mu    sync.Mutex
	shown bool
	last  time.Time
}

// progress shows "pprofx: VERB i/n NAME" on stderr (a terminal), at most
// ten times a second.
func (ios *IOStreams) progress(verb string, i, n int, name string) {
	if !ios.ErrIsTerminal {
		return
	}
	s := &ios.status
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if i < n && now.Sub(s.last) < 100*time.Millisecond {
		return
	}
	s.last = now
	if len(name) > 50 {
		name = "…" + name[len(name)-49:]
	}
	fmt.Fprintf(ios.ErrOut, "\r\033[Kpprofx: %s %d/%d %s", verb, i, n, name)
	s.shown = true
}

// clearProgress removes the progress line, if one is shown.
func (ios *IOStreams) clearProgress() {
	s := &ios.status
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprint(ios.ErrOut, "\r\033[K")
		s.shown = false
	}
}
