package main

import (
	"fmt"
	"io"
	"strconv"

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
		case row[0] == "goodput":
			row[0] = "accepted by PEP (not end-to-end goodput)"
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

// setPEP records the PEP verdicts of the file's connections: the notes,
// and acks_from_pep_ab/ba of its rows.
func (ff *flowsFile) setPEP(p pepFlows) {
	ff.PEPNotes, ff.pepDirs = p.notes, p.dirs
	for i := range ff.Conns {
		ff.markPEP(&ff.Conns[i])
	}
}

// markPEP sets the row's acks_from_pep columns.
func (ff *flowsFile) markPEP(r *flowRow) {
	if d, ok := ff.pepDirs[r.Conn]; ok {
		r.PEPAB, r.PEPBA = d == flows.AtoB, d == flows.BtoA
	}
}

// pepCell prints a goodput cell of the flows table: marked "PEP" when a
// PEP sent the ACKs (the rate is of bytes it accepted).
func pepCell(v float64, proxied bool) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if proxied {
		s += " PEP"
	}
	return s
}

// pepFooter extends the flows table's footer when some cell is marked.
func pepFooter(files []flowsFile) string {
	for _, f := range files {
		if len(f.pepDirs) > 0 {
			return "; PEP = the ACKs came from a split-TCP PEP: that rate is of bytes accepted by the PEP, not delivered to the receiver (docs/metrics.md#pep)"
		}
	}
	return ""
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

// pepHead renames the flows table's goodput columns of a direction some
// connection of f had acknowledged by a PEP: "goodput or PEP-accepted".
func pepHead(head []string, f flowsFile) []string {
	var ab, ba bool
	for _, d := range f.pepDirs {
		ab, ba = ab || d == flows.AtoB, ba || d == flows.BtoA
	}
	if !ab && !ba {
		return head
	}
	out := append([]string(nil), head...)
	for i, h := range out {
		switch {
		case ab && h == "goodput a>b kbit/s":
			out[i] = "goodput or PEP-accepted a>b kbit/s"
		case ba && h == "goodput b>a kbit/s":
			out[i] = "goodput or PEP-accepted b>a kbit/s"
		}
	}
	return out
}
