package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// analysisFlags are the flags every verb that reads captures shares.
type analysisFlags struct {
	wscale int
	noFold bool
}

func (f *analysisFlags) register(c *cobra.Command) {
	c.Flags().IntVar(&f.wscale, "wscale", -1, "window-scale shift (0-14) to assume for connections whose handshake was not captured; -1 leaves it unknown")
	c.Flags().BoolVar(&f.noFold, "no-fold", false, "do not fold copies of one packet (802.11 retries, relayed copies, second interface)")
}

// options are the analysis options of the flags (numRules checked their
// range; flows.Options.Validate is the rule).
func (f *analysisFlags) options() (tcpanalysis.Options, error) {
	o := flows.Options{WScale: f.wscale, NoFold: f.noFold}
	if err := o.Validate(); err != nil {
		return tcpanalysis.Options{}, fmt.Errorf("--wscale: %w", err)
	}
	return tcpanalysis.Options{Flows: o}, nil
}

// inputError marks errors caused by the user's input files (unreadable,
// not a capture, no such connection in it): exit status 2.
func inputError(err error) error {
	var fe *capture.FrameError
	if errors.As(err, &fe) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) ||
		errors.Is(err, query.ErrNoMatch) || errors.Is(err, query.ErrNoConn) {
		return &exitError{code: 2, err: err}
	}
	return err
}

// analyzeFile is the one place a capture file is read for analysis, by
// e.analyze and by every query.Analyze pass (e.view).
func (e *env) analyzeFile(path string, opts tcpanalysis.Options) (*tcpanalysis.Report, error) {
	return e.analyzeFiltered(path, opts) // live.go: --filter
}

// analyze runs the analysis of one file and prints its warnings to stderr.
func (e *env) analyze(path string, opts tcpanalysis.Options) (*tcpanalysis.Report, error) {
	rep, err := e.analyzeFile(path, opts)
	if err != nil {
		return nil, inputError(err)
	}
	e.warn(query.Warnings(rep))
	return rep, nil
}

// warn prints warnings to stderr, one line each; ACKs of unseen data are
// one line per connection for a few connections, else one line per file
// (printConnNotes).
func (e *env) warn(ws []query.Warning) {
	unseen := map[string][]int{}
	var files []string
	for _, w := range ws {
		if w.Kind == query.WarnAckedUnseen {
			if len(unseen[w.File]) == 0 {
				files = append(files, w.File)
			}
			if c := unseen[w.File]; len(c) == 0 || c[len(c)-1] != w.Conn {
				unseen[w.File] = append(c, w.Conn)
			}
		}
	}
	for _, w := range ws {
		if w.Kind != query.WarnAckedUnseen || len(unseen[w.File]) <= maxConnNotes {
			fmt.Fprintln(e.stderr, "warning:", w)
		}
	}
	for _, f := range files {
		if len(unseen[f]) > maxConnNotes {
			printConnNotes(e.stderr, "warning", f, unseen[f], "ACKs acknowledge data the capture never saw (dropped by the capture, or sent past it)")
		}
	}
}
