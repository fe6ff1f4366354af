package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
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

// inputError marks errors caused by the user's input files: exit status 2.
func inputError(err error) error {
	var fe *capture.FrameError
	if errors.As(err, &fe) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return &exitError{code: 2, err: err}
	}
	return err
}

// analyze runs the analysis of one file and prints its warnings to stderr.
func (e *env) analyze(path string, opts tcpanalysis.Options) (*tcpanalysis.Report, error) {
	rep, err := e.analyzeFiltered(path, opts) // live.go: --filter
	if err != nil {
		return nil, inputError(err)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(e.stderr, "warning:", w)
	}
	var unseen []int
	for _, r := range rep.Conns {
		for d := range r.Dir {
			if n := r.Dir[d].AckedUnseen; n > 0 {
				if len(rep.Conns) <= maxConnNotes {
					fmt.Fprintf(e.stderr, "warning: %s conn %d: %d ACKs acknowledge %s data the capture never saw (dropped by the capture, or sent past it)\n", path, r.Conn.Index, n, flowsDir(d))
				}
				if len(unseen) == 0 || unseen[len(unseen)-1] != r.Conn.Index {
					unseen = append(unseen, r.Conn.Index)
				}
			}
		}
	}
	if len(rep.Conns) > maxConnNotes {
		printConnNotes(e.stderr, "warning", path, unseen, "ACKs acknowledge data the capture never saw (dropped by the capture, or sent past it)")
	}
	if n := rep.Stats.TimeBackwards; n > 0 {
		fmt.Fprintf(e.stderr, "warning: %s: %d frames are stamped earlier than the frame before them; analysed in file order\n", path, n)
	}
	if st := rep.Stats; st.Frames > 0 && st.Last.Sub(st.First) > 30*24*time.Hour {
		fmt.Fprintf(e.stderr, "warning: %s: the capture spans %.0f days between its first and last frame: a timestamp may jump\n", path, st.Last.Sub(st.First).Hours()/24)
	}
	return rep, nil
}

// wscaleString formats a shift for tables: empty when unknown.
func wscaleString(h *flows.Half) string {
	if h.WScale < 0 {
		return ""
	}
	return fmt.Sprint(h.WScale)
}

func flowsDir(d int) string {
	if d == 0 {
		return "a→b"
	}
	return "b→a"
}
