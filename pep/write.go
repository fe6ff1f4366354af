package pep

import (
	"fmt"
	"io"

	"github.com/tcpviz/tcpviz/internal/textcol"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Write prints v as the CLI shows it: a heading with label (for example
// " for run.pcap conn 3"), the data direction and the conclusion (a PEP,
// a likely PEP, unknown — Possible: the criterion that could not decide is
// named —, or no sign of one), the evidence table (Table, left-aligned
// columns), the RTT from the capture point to the next TCP endpoint
// (LocalRTT) and the end-to-end RTT (FarRTT: "as given by " + givenBy
// when PathGiven, else an estimate; "unknown" when a PEP is likely or
// possible and no path RTT was given, with how to learn it), in
// milliseconds with 3 decimals. Errors: w's.
func (v Verdict) Write(w io.Writer, label, givenBy string) error {
	verdict := "no sign of a split-TCP PEP"
	switch {
	case v.Proven():
		verdict = "a split-TCP PEP is between the sender and the receiver: the connection RTT is below a quarter of the path RTT given"
	case v.Likely:
		verdict = "a split-TCP PEP is likely between the sender and the receiver"
	case v.Possible:
		verdict = "unknown: the acknowledger is on the sender's link, and one capture cannot tell the receiver from a split-TCP PEP there (receiver-hops: unknown)"
	}
	fmt.Fprintf(w, "\nPEP evidence%s (data %s; docs: pep package, docs/metrics.md#pep): %s\n", label, v.Dir, verdict)
	if err := textcol.Write(w, v.Table(), false); err != nil {
		return err
	}
	if v.LocalRTT > 0 {
		fmt.Fprintf(w, "RTT from the capture point to the next TCP endpoint (the PEP if any): %s ms\n", msText(v.LocalRTT))
	}
	var err error
	switch {
	case v.FarRTT > 0 && v.PathGiven:
		_, err = fmt.Fprintf(w, "end-to-end RTT: %s ms (as given by %s)\n", msText(v.FarRTT), givenBy)
	case v.FarRTT > 0:
		_, err = fmt.Fprintf(w, "end-to-end RTT estimate: %s ms\n", msText(v.FarRTT))
	case v.Possible:
		_, err = fmt.Fprintf(w, "end-to-end RTT: unknown — the %s ms above is to the acknowledger, which may be a PEP on the sender's link; %s gives the path's RTT, a capture behind the acknowledger ('tcpviz rtt --pep CLIENT SERVER') measures both halves\n", msText(v.LocalRTT), givenBy)
	case v.Likely:
		_, err = fmt.Fprintf(w, "end-to-end RTT: unknown — one capture on the near side of a PEP does not see the far half; %s gives it, a capture behind the PEP ('tcpviz rtt --pep CLIENT SERVER') measures it\n", givenBy)
	}
	return err
}

// NoSplitError is returned by Split when no connection of the client-side
// capture matches one of the server side (MatchSplit): the two captures
// are probably not the two sides of one PEP.
type NoSplitError struct {
	Client, Server string // the captures' names
}

// Error names the two captures.
func (e *NoSplitError) Error() string {
	return fmt.Sprintf("no connection of %s matches one of %s: are they the two sides of one PEP?", e.Client, e.Server)
}

// Split matches the connections of the client-side report cl (the capture
// named client) with those of the server-side report sv (named server) and
// measures each pair: MatchSplit, then AnalyzeSplit. Errors: a
// *NoSplitError when no pair matches.
func Split(client string, cl *tcpanalysis.Report, server string, sv *tcpanalysis.Report) ([]SplitResult, error) {
	pairs := MatchSplit(cl, sv)
	if len(pairs) == 0 {
		return nil, &NoSplitError{Client: client, Server: server}
	}
	return AnalyzeSplit(cl, sv, pairs), nil
}

// WriteSplit prints the split connections of Split as the CLI shows them:
// a line naming the two captures, then SplitTable as right-aligned
// columns. Errors: w's.
func WriteSplit(w io.Writer, client, server string, results []SplitResult) error {
	fmt.Fprintf(w, "split connections: %s (client side) and %s (server side)\n", client, server)
	return textcol.Write(w, SplitTable(results), true)
}
