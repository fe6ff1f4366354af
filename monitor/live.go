package monitor

import (
	"context"
	"fmt"

	"github.com/tcpviz/tcpviz/capture/live"
)

// Live opens the live capture lo (capture/live.Open), runs c over it (Run)
// until ctx is cancelled, lo.Count or lo.Duration ends it, and closes it.
// On c.Stderr it says, prefixed "tcpviz VERB:", which interface it
// captures on, then the frames and segments analysed, the connections and
// the frames the kernel dropped (with a warning when there were any), and
// the file lo.Write named. Errors: those of live.Open (a filter that does
// not compile wraps live.ErrFilter, a bad frame is a *capture.FrameError),
// Run's, closing the capture (the -w file), and the error that ended
// reading early (Result.ReadErr). c is validated (Config.Validate) before
// the capture is opened.
func Live(ctx context.Context, lo live.Options, c Config) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	cp, err := live.Open(ctx, lo)
	if err != nil {
		return Result{}, &OpenError{err}
	}
	defer cp.Close()
	filt := ""
	if lo.Filter != "" {
		filt = fmt.Sprintf(", filter %q", lo.Filter)
	}
	fmt.Fprintf(c.Stderr, "tcpviz %s: capturing on %s (%s)%s; Ctrl-C stops and prints the summary\n", c.Verb, lo.Iface, live.Backend, filt)
	if c.Iface == "" {
		c.Iface = lo.Iface
	}
	res, err := Run(cp.Reader(), cp.Stop, c)
	if err != nil {
		return res, err
	}
	cs := cp.Stats()
	if err := cp.Close(); err != nil {
		return res, err
	}
	conns := "1 connection"
	if res.Conns != 1 {
		conns = fmt.Sprintf("%d connections", res.Conns)
	}
	fmt.Fprintf(c.Stderr, "tcpviz %s: %s: %d frames analysed (%d TCP segments, %s), %d dropped by the kernel\n",
		c.Verb, lo.Iface, res.Frames, res.Segments, conns, cs.Dropped)
	if cs.Dropped > 0 {
		fmt.Fprintf(c.Stderr, "warning: the kernel dropped %d frames (the ring was full): the numbers above miss them (a --filter runs in the kernel, and so sheds load, only in the -tags pcap build)\n", cs.Dropped)
	}
	if lo.Write != "" {
		fmt.Fprintf(c.Stderr, "tcpviz %s: wrote %s\n", c.Verb, lo.Write)
	}
	return res, res.ReadErr
}

// OpenError is Live's error when the capture could not be opened (no such
// interface, no permission, a filter that does not compile); its message
// is Err's.
type OpenError struct{ Err error }

// Error is Err's message.
func (e *OpenError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *OpenError) Unwrap() error { return e.Err }
