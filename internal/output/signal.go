package output

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Temporary files not yet renamed or removed, for the signal handler.
var (
	tempMu sync.Mutex
	temps  = map[string]bool{}
)

func untrack(name string) {
	tempMu.Lock()
	delete(temps, name)
	tempMu.Unlock()
}

// HandleSignals makes SIGINT, SIGTERM and SIGHUP remove every temporary
// file of this package before the process ends, by the same signal, so
// that its parent sees the conventional status (128 + the signal's
// number in a shell). Call it once, from main.
func HandleSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-ch
		// Hold the lock to the end: no temporary file is created or
		// renamed after this point.
		tempMu.Lock()
		for name := range temps {
			os.Remove(name)
		}
		signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		s := sig.(syscall.Signal)
		syscall.Kill(os.Getpid(), s)
		// Should the signal not end the process (it is ignored), exit
		// with its conventional status anyway.
		os.Exit(128 + int(s))
	}()
}
