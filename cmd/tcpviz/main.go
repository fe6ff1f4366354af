// Command tcpviz turns packet captures into TCP time-sequence, window, RTT,
// retransmission and goodput series, plots them and compares runs.
//
// main only calls run; every verb lives in its own file and registers itself
// with addCommand from an init function.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/spf13/cobra"
)

// exitError carries a process exit status chosen by a verb (2 for bad input,
// 3 for a partial batch).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// verbs is filled by the init functions of the verb files.
var verbs []func(*env) *cobra.Command

// addCommand registers a verb constructor; called from init in each verb file.
func addCommand(f func(*env) *cobra.Command) { verbs = append(verbs, f) }

// rootHooks run on the finished command tree: they may add flags to verbs
// defined in other files (live.go adds -i and --filter).
var rootHooks []func(*env, *cobra.Command)

// env is what a verb may touch: its output streams and the context that is
// cancelled on Ctrl-C.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
	// filter is the --filter expression applied to every capture file
	// read (live.go); empty for none.
	filter string
	fig    figFlags // --size, --font-size, --dpi of the graph verbs (figflags.go)
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "tcpviz",
		Short: "TCP behaviour from packet captures: Stevens graphs, RTT, retransmissions, goodput",
		Long: `tcpviz reads pcap/pcapng captures, rebuilds every TCP connection and derives
time-sequence, window, in-flight, RTT, retransmission and goodput series.
Every metric is defined in docs/metrics.md.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentPreRunE = checkOutputs
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	for _, f := range verbs {
		root.AddCommand(f(e))
	}
	for _, h := range rootHooks {
		h(e, root)
	}
	return root
}

// run executes tcpviz with args (without the program name).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, stdin: stdin}
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	return root.ExecuteContext(ctx)
}

func main() {
	ctx, stop := notifySignals()
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if code := interruptCode(); code != 0 {
		removeTemps()
		fmt.Fprintf(os.Stderr, "tcpviz: %v: stopped; nothing written\n", syscall.Signal(code-128))
		os.Exit(code)
	}
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "tcpviz:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	os.Exit(1)
}
