package compare

import (
	"fmt"
	"io"

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
			r.Label, r.File, r.Result.Conn.Index, plot.Endpoints(r.Result.Conn, r.Dir), r.RefUsed.Describe(), fb, r.Ref.Sub(r.Result.Conn.First).Seconds())
	}
}
