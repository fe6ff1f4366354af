// Package interrupt ends a tcpviz run on SIGINT or SIGTERM without leaving
// half-written outputs or temporary files behind. The first signal cancels
// the context Notify returns (every capture.Reader given it stops reading,
// capture.SetInterrupt) and stops outputs from being replaced
// (atomicfile.Interrupt); the run then returns on its own, or, after a
// second signal or HardExitAfter, the process removes the temporary files
// (atomicfile.RemoveTracked) and exits with Code.
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tcpviz/tcpviz/internal/atomicfile"
)

// Live says the run captures live (tcpviz -i): the first signal is then
// how the capture ends — it cancels Notify's context, the run prints its
// summary and exits 0 — and only a second signal interrupts the run.
var Live atomic.Bool

// signalled is the signal that interrupted the run (0 if none).
var signalled atomic.Int32

// HardExitAfter is how long a signalled run may take to stop on its own
// (readers check their context every 1024 frames) before the process
// removes its temporary files and exits anyway: a read blocked on a FIFO
// or a slow disk never returns.
const HardExitAfter = 2 * time.Second

// Notify returns a context cancelled by the first SIGINT or SIGTERM (by
// the second one when Live is set; the first then only cancels the
// context). A signal that interrupts the run marks it (Code, and
// atomicfile.Interrupt: no output is replaced from then on); a further
// signal, or HardExitAfter without the run returning, removes the
// temporary files, writes "tcpviz: SIGNAL: stopped; nothing written" (as
// main does when the run returns) to stderr and exits
// with Code at once. stop releases the signals and cancels the context.
func Notify(stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		s, ok := <-ch
		if !ok {
			return
		}
		if Live.Load() {
			cancel()
			if s, ok = <-ch; !ok {
				return
			}
		}
		signalled.Store(int32(s.(syscall.Signal)))
		atomicfile.Interrupt()
		cancel()
		select {
		case <-ch:
		case <-time.After(HardExitAfter):
		}
		atomicfile.RemoveTracked()
		fmt.Fprintln(stderr, Stopped())
		os.Exit(Code())
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

// Code is the exit status after a signal interrupted the run: 128 + its
// number (130 for SIGINT, 143 for SIGTERM), or 0 when none did.
func Code() int {
	if s := signalled.Load(); s != 0 {
		return 128 + int(s)
	}
	return 0
}

// Signal is the signal that interrupted the run, 0 when none did.
func Signal() syscall.Signal { return syscall.Signal(signalled.Load()) }

// Stopped is the line tcpviz prints when a signal stopped it: the signal,
// and the outputs written before it (atomicfile.Replaced; an output whose
// rename had begun when the signal came is among them), or "nothing
// written".
func Stopped() string {
	w := atomicfile.Replaced()
	switch {
	case len(w) == 0:
		return fmt.Sprintf("tcpviz: %v: stopped; nothing written", Signal())
	case len(w) <= 20:
		// Every one named: a batch's outputs, some written and some
		// not, must be told apart (second fresh-eyes check, session 16).
		return fmt.Sprintf("tcpviz: %v: stopped; written before it: %s; nothing else written", Signal(), strings.Join(w, ", "))
	}
	return fmt.Sprintf("tcpviz: %v: stopped; written before it: %s and %d more, the last %s; nothing else written", Signal(), strings.Join(w[:20], ", "), len(w)-20, w[len(w)-1])
}
