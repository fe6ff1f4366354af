// Command tcpviz turns packet captures into TCP time-sequence, window, RTT,
// retransmission and goodput series, plots them and compares runs.
//
// main only calls run; every verb lives in its own file and is listed once,
// in commands. What a verb analyses (connection, direction, time range,
// reference point, series) is decided by package query; cmd/tcpviz only
// wires flags to it and writes the outputs.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/atomicfile"
	"github.com/tcpviz/tcpviz/internal/cpuprof"
	"github.com/tcpviz/tcpviz/internal/interrupt"
	"github.com/tcpviz/tcpviz/query"
)

// exitError carries a process exit status chosen by a verb: 1 for a usage
// error (the default for any other error), 2 for bad input, 3 for a
// partial batch.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// commands lists every verb, in the order 'tcpviz --help' shows them.
func commands(e *env) []*cobra.Command {
	return []*cobra.Command{
		newFlowsCmd(e),
		newSeqCmd(e),
		newRTTCmd(e),
		newRetransCmd(e),
		newWindowCmd(e),
		newTputCmd(e),
		newCompareCmd(e),
		newReportCmd(e),
		newGoodputCmd(e),
		newStatsCmd(e),
		newDemoCmd(e),
		newTestbedCmd(e),
	}
}

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
	// shownPath, if set, maps a capture path to the one the user knows it
	// by in the rows a verb writes: demo analyses copies in a temporary
	// directory but records testdata/… (demo_figures.go).
	shownPath func(string) string
	// stdinFile is standard input spooled once for the run (input), and
	// stdinDone removes it.
	stdinFile string
	stdinDone func()
}

// input returns the file to read for the capture argument path: path
// itself, or for "-" standard input spooled once for the whole run
// (query.Spool, removed when the run ends or on a signal), so that every
// pass of a verb — the analysis, --pep's packet evidence, a second pass —
// reads the same bytes, and every reader names it "stdin"
// (capture.NameFile), never the temporary file.
func (e *env) input(path string) (string, error) {
	if path != "-" {
		return path, nil
	}
	if e.stdinFile == "" {
		p, done, err := query.Spool(e.stdin)
		if err != nil {
			return "", err
		}
		e.stdinFile, e.stdinDone = p, done
	}
	return e.stdinFile, nil
}

// closeInput removes standard input's spool, if input made one.
func (e *env) closeInput() {
	if e.stdinDone != nil {
		e.stdinDone()
		e.stdinFile, e.stdinDone = "", nil
	}
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "tcpviz",
		Short:         "TCP behaviour from packet captures: Stevens graphs, RTT, retransmissions, goodput",
		Long:          help("tcpviz.txt"),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(parseFlagError) // flagerr.go: no Go parser text; the verbs inherit it
	root.PersistentPreRunE = checkOutputs // robust.go: -o checked before any capture is read
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	cobra.EnableCommandSorting = false // 'tcpviz --help' lists the verbs in the order of commands
	root.AddCommand(commands(e)...)
	addLiveFlags(e, root)      // -i, --filter on flows, rtt, retrans, tput (live.go)
	addFileFilter(e, root)     // --filter on seq, window (live.go)
	hideSentinelDefaults(root) // numflags.go: no "(default -1)" for --conn
	return root
}

// run executes tcpviz with args (without the program name).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, stdin: stdin}
	defer e.closeInput()
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	return root.ExecuteContext(ctx)
}

func main() {
	ctx, stop := interrupt.Notify(os.Stderr) // SIGINT, SIGTERM: temporaries removed, status 128+n
	defer stop()
	capture.SetInterrupt(ctx)   // every capture Reader stops reading on it
	stopProf := cpuprof.Start() // $TCPVIZ_CPUPROFILE (docs/performance.md)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProf()
	if code := interrupt.Code(); code != 0 {
		atomicfile.RemoveTracked()
		fmt.Fprintln(os.Stderr, interrupt.Stopped())
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
