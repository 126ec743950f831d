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
//
// The handler is installed on a goroutine of its own: the first
// signal.Notify starts the runtime's signal-handling thread, 0.5-1 ms on a
// virtual machine, which then overlaps the reading of the input.
// CreateTemp waits for it, so that no temporary file exists before the
// handler does.
func HandleSignals() {
	signalsReady = make(chan struct{})
	go func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		close(signalsReady)
		sig := <-ch
		// Hold the lock to the end: no temporary file is created or
		// renamed after this point.
		tempMu.Lock()
		for name := range temps {
			os.Remove(name)
		}
		signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		s := sig.(syscall.Signal)
		raise(s)
		// Should the signal not end the process (it is ignored), exit
		// with its conventional status anyway.
		os.Exit(128 + int(s))
	}()
}

// signalsReady is closed once HandleSignals' handler is installed; nil
// when HandleSignals was not called.
var signalsReady chan struct{}

// waitSignals waits for the signal handler, if there is to be one.
func waitSignals() {
	if signalsReady != nil {
		<-signalsReady
	}
}
