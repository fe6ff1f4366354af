package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// writeVerdict prints the PEP evidence for one connection and direction.
func writeVerdict(w io.Writer, label string, v pep.Verdict, given time.Duration) error {
	verdict := "no sign of a split-TCP PEP"
	if v.Likely {
		verdict = "a split-TCP PEP is likely between the sender and the receiver"
	}
	fmt.Fprintf(w, "\nPEP evidence%s (data %s; docs: pep package, docs/metrics.md#rtt): %s\n", label, v.Dir, verdict)
	if err := export.WriteColumns(w, v.Table(), false); err != nil {
		return err
	}
	if v.LocalRTT > 0 {
		fmt.Fprintf(w, "RTT from the capture point to the next TCP endpoint (the PEP if any): %s ms\n", export.FormatMS(v.LocalRTT))
	}
	switch {
	case v.FarRTT > 0 && v.FarRTT == given:
		fmt.Fprintf(w, "end-to-end RTT: %s ms (as given by --path-rtt)\n", export.FormatMS(v.FarRTT))
	case v.FarRTT > 0:
		fmt.Fprintf(w, "end-to-end RTT estimate: %s ms\n", export.FormatMS(v.FarRTT))
	}
	return nil
}

// pepOne runs single-capture PEP detection on the chosen connection.
func (e *env) pepOne(path string, r *tcpanalysis.ConnResult, d flows.Direction, pathRTT time.Duration) error {
	pk, err := pep.Evidence(path, r.Conn.Index)
	if err != nil {
		return inputError(err)
	}
	v := pep.DetectWith(r, d, pep.Options{PathRTT: pathRTT, Packets: pk})
	return writeVerdict(e.stdout, fmt.Sprintf(" for %s conn %d", path, r.Conn.Index), v, pathRTT)
}

// pepTwo matches the two halves of split connections in captures taken on
// each side of the PEP and reports the RTT of each half, the bytes held in
// the PEP and the end-to-end goodput.
func (e *env) pepTwo(clientPath, serverPath string, af *analysisFlags, out string) error {
	opts, err := af.options()
	if err != nil {
		return err
	}
	opts.Detail = true
	opts.Keep = func(int) bool { return true }
	// One pcapng with two interfaces: interface 0 is the client side and
	// interface 1 the server side.
	clOpts, svOpts := opts, opts
	if serverPath == clientPath {
		clOpts.Ifaces, svOpts.Ifaces = []int{0}, []int{1}
	}
	cl, err := e.analyze(clientPath, clOpts)
	if err != nil {
		return err
	}
	sv, err := e.analyze(serverPath, svOpts)
	if err != nil {
		return err
	}
	pairs := pep.MatchSplit(cl, sv)
	if len(pairs) == 0 {
		return fmt.Errorf("no connection of %s matches one of %s: are they the two sides of one PEP?", clientPath, serverPath)
	}
	results := pep.AnalyzeSplit(cl, sv, pairs)
	if out != "" {
		if strings.ToLower(filepath.Ext(out)) != ".csv" {
			return fmt.Errorf("-o %s: the two-capture mode writes the held-bytes series as .csv", out)
		}
		if err := writeFileAtomic(out, func(f *os.File) error { return pep.WriteHeldCSV(f, results, cl.Start) }); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, out)
	}
	fmt.Fprintf(e.stdout, "split connections: %s (client side) and %s (server side)\n", clientPath, serverPath)
	return export.WriteAligned(e.stdout, pep.SplitTable(results))
}
