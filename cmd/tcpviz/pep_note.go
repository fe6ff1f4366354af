package main

import (
	"fmt"
	"io"

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

// The PEP's words in tput's table and legend, and in flows' notes (pep).
var (
	pepTputTable  = pep.AcceptedRows
	tputAckLegend = pep.AckLegend
)
