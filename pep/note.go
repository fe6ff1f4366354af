package pep

import (
	"fmt"
	"strings"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Supporting returns the names of the criteria that support a split.
func (v Verdict) Supporting() []string {
	var out []string
	for _, it := range v.Evidence {
		if it.Supports {
			out = append(out, it.Name)
		}
	}
	return out
}

// AckNote is the sentence outputs print for a direction whose ACKs come
// from a PEP (v.Likely): its acknowledged bytes — "acked", "goodput",
// cumulative ACKs — are bytes the PEP accepted, not bytes delivered to the
// receiver (docs/metrics.md#pep). It returns "" when v is not Likely.
func (v Verdict) AckNote() string {
	if !v.Likely {
		return ""
	}
	return fmt.Sprintf("data %s is acknowledged by a split-TCP PEP (evidence: %s): its acknowledged bytes and goodput are bytes the PEP accepted, not delivered end to end; 'tcpviz compare LABEL=CLIENT+SERVER' with a capture behind the PEP gives the end-to-end goodput",
		v.Dir, strings.Join(v.Supporting(), ", "))
}

// ConnNote is AckNote for data direction d of connection r, prefixed
// with the connection ("conn 3: data ab is acknowledged by …"), as the
// CLI's notes print it; "" when no PEP acknowledges d (Detect).
func ConnNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	return Detect(r, d).NoteOn(r.Conn.Index)
}

// NoteOn is AckNote prefixed with connection index conn ("conn 3: …"),
// the form of the CLI's notes; "" when v is not Likely.
func (v Verdict) NoteOn(conn int) string {
	if !v.Likely {
		return ""
	}
	return fmt.Sprintf("conn %d: %s", conn, v.AckNote())
}

// Acknowledger returns the one-capture verdict for the direction of r that
// carried more payload, for listings of many connections.
func Acknowledger(r *tcpanalysis.ConnResult) Verdict {
	d := flows.AtoB
	if r.Dir[flows.BtoA].Unique > r.Dir[flows.AtoB].Unique {
		d = flows.BtoA
	}
	return Detect(r, d)
}

// NeedsDetail reports whether r's verdict v for direction d could change
// with the connection's detail kept (tcpanalysis Options.Keep): one
// criterion supports a split and zero-window events were seen, so a stall
// still open at the end — visible only with detail — may be the second.
func NeedsDetail(r *tcpanalysis.ConnResult, d flows.Direction, v Verdict) bool {
	return !v.Likely && len(v.Supporting()) > 0 && r.Counts[d][tcpanalysis.ZeroWindow] > 0
}
