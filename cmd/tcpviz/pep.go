package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// writeVerdict prints the PEP evidence for one connection and direction
// (pep.Verdict.Write); v was detected with the path RTT given, if any.
func writeVerdict(w io.Writer, label string, v pep.Verdict, given time.Duration) error {
	return v.Write(w, label, "--path-rtt")
}

// pepOne runs single-capture PEP detection on the chosen connection.
func (e *env) pepOne(path string, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, d flows.Direction, pathRTT time.Duration) error {
	p, err := e.input(path) // "-": the spool the analysis read
	if err != nil {
		return err
	}
	pk, err := pep.Evidence(p, r.Conn.Index)
	if err != nil {
		return inputError(err)
	}
	v := pep.DetectWith(r, d, pep.Options{PathRTT: pathRTT, Packets: pk, Links: pep.LinksOf(rep)})
	if err := writeVerdict(e.stdout, fmt.Sprintf(" for %s conn %d", displayName(path), r.Conn.Index), v, pathRTT); err != nil {
		return err
	}
	// The note of the whole evidence (per-packet TTLs and IP IDs,
	// --path-rtt): "likely" unless the path RTT proves the split.
	if n := v.NoteOn(r.Conn.Index); n != "" {
		fmt.Fprintln(e.stderr, "note:", n)
	}
	return nil
}

// pepTwo matches the two halves of split connections in captures taken on
// each side of the PEP (pep.Split) and prints the RTT of each half, the
// bytes held in the PEP and the end-to-end goodput; -o writes the
// held-bytes series.
func (e *env) pepTwo(clientPath, serverPath string, af *analysisFlags, out string) error {
	if out != "" && strings.ToLower(filepath.Ext(out)) != ".csv" {
		return fmt.Errorf("-o %s: the two-capture mode writes the held-bytes series as .csv", out)
	}
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
	// "-" is standard input, spooled once: a two-interface pcapng on it
	// is read twice.
	clFile, err := e.input(clientPath)
	if err != nil {
		return err
	}
	svFile, err := e.input(serverPath)
	if err != nil {
		return err
	}
	clientPath, serverPath = displayName(clientPath), displayName(serverPath)
	cl, err := e.analyze(clFile, clOpts)
	if err != nil {
		return err
	}
	sv, err := e.analyze(svFile, svOpts)
	if err != nil {
		return err
	}
	results, err := pep.Split(clientPath, cl, serverPath, sv)
	if err != nil {
		return err
	}
	if out != "" {
		if err := writeFileAtomic(out, func(f *os.File) error { return pep.WriteHeldCSV(f, results, cl.Start) }); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, out)
	}
	return pep.WriteSplit(e.stdout, clientPath, serverPath, results)
}
