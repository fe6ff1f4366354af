package main

import (
	"fmt"
	"io"
	"time"

	"github.com/tcpviz/tcpviz/figures"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// pepNote prints a note when direction d of connection r of report rep is
// acknowledged by a PEP, or may be (pep.DetectIn with the path RTT given,
// docs/metrics.md#pep), and reports whether it did.
func pepNote(w io.Writer, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, d flows.Direction, pathRTT time.Duration) bool {
	n := pep.DetectIn(rep, r, d, pep.Options{PathRTT: pathRTT}).NoteOn(r.Conn.Index)
	if n != "" {
		fmt.Fprintln(w, "note:", n)
	}
	return n != ""
}

// pepViewNote is pepNote for v's connection and direction, with the path
// RTT the view carries (figures.PEPVerdict: the verdict its figure and
// table name their acknowledged bytes by).
func pepViewNote(w io.Writer, v *query.View) bool {
	n := figures.PEPVerdict(v).NoteOn(v.Conn.Conn.Index)
	if n != "" {
		fmt.Fprintln(w, "note:", n)
	}
	return n != ""
}

// pepAfter ends a single-connection verb's output with the PEP's word on
// v's connection and direction (of the capture at path): with --pep
// (pepMode) the verdict of the whole evidence and its note (pepOne), else
// the one-capture note (pepNote).
func (e *env) pepAfter(pepMode bool, path string, v *query.View, pathRTT time.Duration) error {
	if pepMode {
		return e.pepOne(path, v.Report, v.Conn, v.Dir, pathRTT)
	}
	pepNote(e.stderr, v.Report, v.Conn, v.Dir, pathRTT)
	return nil
}

// pepTputTable is the PEP's word in tput's table (pep.AcceptedRows).
var pepTputTable = pep.AcceptedRows
