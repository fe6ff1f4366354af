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

// pepTputTable renames the tput summary rows that count acknowledged bytes
// when a PEP acknowledged them: they are bytes the PEP accepted.
func pepTputTable(table [][]string, r *tcpanalysis.ConnResult, d flows.Direction) [][]string {
	v := pep.Detect(r, d)
	if !v.Likely {
		return table
	}
	for _, row := range table {
		switch {
		case len(row[0]) > 11 && row[0][:11] == "acked after":
			row[0] = "accepted by PEP after" + row[0][11:]
		case row[0] == "goodput", row[0] == "goodput, whole connection":
			row[0] = "accepted by PEP (not end-to-end goodput)"
		case row[0] == "acked in window":
			row[0] = "accepted by PEP in window"
		case row[0] == "goodput in window":
			row[0] = "accepted by PEP in window, rate"
		}
	}
	return table
}

// pepFlows is what flows knows about PEPs in one capture: the notes to
// print and, per connection, the data direction a PEP acknowledged.
type pepFlows struct {
	notes []string
	dirs  map[int]flows.Direction
}

// pepFlowNotes lists the connections of rep whose ACKs come from a PEP.
// Without per-connection detail a zero-window stall still open at the end
// is invisible, so connections pep.NeedsDetail names (at most
// maxPEPRecheck) are analysed again with their detail kept.
func pepFlowNotes(path string, rep *tcpanalysis.Report, opts tcpanalysis.Options) pepFlows {
	const maxPEPRecheck = 16
	var out []string
	dirs := map[int]flows.Direction{}
	recheck := map[int]bool{}
	for _, r := range rep.Conns {
		v := pep.Acknowledger(r)
		switch {
		case v.Likely:
			dirs[r.Conn.Index] = v.Dir
			out = append(out, fmt.Sprintf("conn %d: %s", r.Conn.Index, v.AckNote()))
		case pep.NeedsDetail(r, v.Dir, v) && len(recheck) < maxPEPRecheck:
			recheck[r.Conn.Index] = true
		}
	}
	if len(recheck) == 0 || path == "-" {
		return pepFlows{out, dirs}
	}
	opts.Keep = func(i int) bool { return recheck[i] }
	again, err := tcpanalysis.AnalyzeFile(path, opts)
	if err != nil {
		return pepFlows{out, dirs}
	}
	for _, r := range again.Conns {
		if recheck[r.Conn.Index] {
			v := pep.Acknowledger(r)
			if n := v.AckNote(); n != "" {
				dirs[r.Conn.Index] = v.Dir
				out = append(out, fmt.Sprintf("conn %d: %s", r.Conn.Index, n))
			}
		}
	}
	return pepFlows{out, dirs}
}

// tputAckLegend names tput's series of newly acknowledged bytes.
func tputAckLegend(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if pep.Detect(r, d).Likely {
		return "accepted by the PEP (newly acknowledged by it; not end-to-end goodput)"
	}
	return "goodput (newly acknowledged)"
}
