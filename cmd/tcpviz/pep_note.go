package main

import (
	"fmt"
	"io"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// pepNote prints a note when direction d of r is acknowledged by a PEP
// (docs/metrics.md#pep) and reports whether it did.
func pepNote(w io.Writer, r *tcpanalysis.ConnResult, d flows.Direction) bool {
	n := pep.Detect(r, d).AckNote()
	if n == "" {
		return false
	}
	fmt.Fprintf(w, "note: conn %d: %s\n", r.Conn.Index, n)
	return true
}

// The PEP's words in tput's table and legend, and in flows' notes (pep).
var (
	pepTputTable  = pep.AcceptedRows
	tputAckLegend = pep.AckLegend
)

// pepFlows is what flows knows about PEPs in one capture: the notes to
// print and, per connection, the data direction a PEP acknowledged.
type pepFlows struct {
	notes []string
	dirs  map[int]flows.Direction
}

// pepFlowNotes lists the connections of rep whose ACKs come from a PEP
// (pep.FlowNotes).
func pepFlowNotes(path string, rep *tcpanalysis.Report, opts tcpanalysis.Options) pepFlows {
	notes, dirs := pep.FlowNotes(path, rep, opts)
	return pepFlows{notes, dirs}
}
