package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

func (f *analysisFlags) options() (tcpanalysis.Options, error) {
	if f.wscale > 14 {
		return tcpanalysis.Options{}, fmt.Errorf("--wscale %d: a shift is at most 14 (RFC 7323 §2.3)", f.wscale)
	}
	return tcpanalysis.Options{Flows: flows.Options{WScale: f.wscale, NoFold: f.noFold}}, nil
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
	return tcpanalysis.AnalyzeFile(path, opts)
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

// warn prints warnings to stderr, one line each.
func (e *env) warn(ws []query.Warning) {
	for _, w := range ws {
		fmt.Fprintln(e.stderr, "warning:", w)
	}
}

// writeFileAtomic writes data produced by write to path through a
// temporary file in the same directory and a rename, so readers never see a
// half-written output.
func writeFileAtomic(path string, write func(f *os.File) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // no-op after a successful rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(name, 0o644); err != nil {
		return err
	}
	return os.Rename(name, path)
}
