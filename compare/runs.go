package compare

import (
	"fmt"
	"io"
	"time"

	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// WriteRuns says, one line per run, what compare read of it: its label,
// capture, connection, data direction and the reference point it is
// aligned at, in seconds after the connection's first packet; a run that
// fell back from ref to another reference point (query.Ref.Resolve) says
// why. Errors of w are not reported (as fmt.Fprintf).
func WriteRuns(w io.Writer, runs []Run, ref query.Ref) {
	for _, r := range runs {
		fb := ""
		if r.RefUsed != ref {
			fb = fmt.Sprintf(", as its direction %s sent no %s", r.Dir, ref.Needs())
		}
		fmt.Fprintf(w, "%s: %s conn %d, data %s, aligned at %s%s (%.3f s after its first packet)\n",
			r.Label, shown(r.File), r.Result.Conn.Index, plot.Endpoints(r.Result.Conn, r.Dir), r.RefUsed.Describe(), fb, r.Ref.Sub(r.Result.Conn.First).Seconds())
	}
}

// PEPVerdicts calls yield, run by run, with the evidence for or against a
// split-TCP PEP on the run's connection (docs/metrics.md#pep):
// pep.DetectWith with the path's end-to-end RTT pathRTT (0: unknown) and
// the packet evidence of pep.Evidence, except for a run whose two sides
// are one pcapng (Evidence reads every interface, so its connection
// indexes differ). It stops at the first error, of pep.Evidence (naming
// the capture) or of yield, and returns it.
func PEPVerdicts(runs []Run, pathRTT time.Duration, yield func(Run, pep.Verdict) error) error {
	for _, r := range runs {
		var pk *pep.PacketStats
		if !r.TwoIfaces() {
			var err error
			if pk, err = pep.Evidence(r.File, r.Result.Conn.Index); err != nil {
				return err
			}
		}
		if err := yield(r, pep.DetectWith(r.Result, r.Dir, pep.Options{PathRTT: pathRTT, Packets: pk, Links: r.Links})); err != nil {
			return err
		}
	}
	return nil
}
