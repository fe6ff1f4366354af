package main

import (
	"fmt"
	"io"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// pepNote prints a note when direction d of r is acknowledged by a PEP
// (pep.ConnNote, docs/metrics.md#pep) and reports whether it did.
func pepNote(w io.Writer, r *tcpanalysis.ConnResult, d flows.Direction) bool {
	n := pep.ConnNote(r, d)
	if n != "" {
		fmt.Fprintln(w, "note:", n)
	}
	return n != ""
}

// pepAfter ends a single-connection verb's output with the PEP's word on
// direction d of r: with --pep (pepMode) the verdict of the whole evidence
// and its note (pepOne), else the one-capture note (pepNote).
func (e *env) pepAfter(pepMode bool, path string, r *tcpanalysis.ConnResult, d flows.Direction, pathRTT time.Duration) error {
	if pepMode {
		return e.pepOne(path, r, d, pathRTT)
	}
	pepNote(e.stderr, r, d)
	return nil
}

// The PEP's words in tput's table and legend, and in flows' notes (pep).
var (
	pepTputTable  = pep.AcceptedRows
	tputAckLegend = pep.AckLegend
)
