package pep

import (
	"fmt"
	"slices"
	"strings"
	"time"

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
// receiver (docs/metrics.md#pep); for a direction a PEP may acknowledge
// (v.Possible) it is PossibleNote. It returns "" otherwise.
//
// The note says "likely" unless the path RTT given (Options.PathRTT)
// proves the split (conn-rtt-vs-path), and when the only support is an
// on-link acknowledger that stalled (receiver-hops and zero-window-stall),
// it says that a receiving application that stops reading on the
// sender's link shows the same two signs: one capture cannot tell them
// apart (cases/zero_window_probe: a plain receiver closing its window).
func (v Verdict) AckNote() string {
	if v.Possible {
		return v.PossibleNote()
	}
	if !v.Likely {
		return ""
	}
	how := "is likely acknowledged"
	if v.Proven() {
		how = "is acknowledged"
	}
	return fmt.Sprintf("data %s %s by a split-TCP PEP (evidence: %s): its acknowledged bytes and goodput are bytes the PEP accepted, not delivered end to end; 'tcpviz compare LABEL=CLIENT+SERVER' with a capture behind the PEP gives the end-to-end goodput.%s%s",
		v.Dir, how, strings.Join(v.Supporting(), ", "), v.Given(), v.Caveat())
}

// PossibleNote is the sentence outputs print for a direction a PEP may
// acknowledge (v.Possible): what is unknown, which evidence left it so,
// that its acknowledged bytes (marked "PEP?") are end to end only if the
// acknowledger is the receiver, and the two ways to decide — the path's
// RTT (--path-rtt) or a capture behind the acknowledger (the CLIENT+SERVER
// pair). "" when v is not Possible.
func (v Verdict) PossibleNote() string {
	if !v.Possible {
		return ""
	}
	return fmt.Sprintf("data %s may be acknowledged by a split-TCP PEP: unknown (evidence: %s): one capture cannot tell a receiver on that link from a PEP answering for a remote one. Its acknowledged bytes and goodput (marked PEP?) are end-to-end only if that host is the receiver. To decide, give the path's end-to-end RTT (--path-rtt: a connection RTT below a quarter of it proves a PEP, one above rules it out), or capture behind the acknowledger too: 'tcpviz compare LABEL=CLIENT+SERVER' gives the end-to-end goodput (docs/metrics.md#pep).",
		v.Dir, v.PossibleWhy())
}

// PossibleWhy names the evidence that left v Possible, for the notes:
// receiver-hops is open — the acknowledger is on the sender's link, with
// its RTT and the sender's —, and what did not decide it (no stall, no
// path RTT, what the link layer showed or why it was not read). "" when v
// is not Possible.
func (v Verdict) PossibleWhy() string {
	if !v.Possible {
		return ""
	}
	where := "0 hops away"
	why := "no zero-window stall, no path RTT given, link layer not read"
	if h := v.hops; h != nil {
		where = fmt.Sprintf("0 hops away, %s against the sender's own %s", rttText(h.towardR), rttText(h.towardS))
		if h.linkRead {
			lw := h.link.Why
			if h.link.Known {
				lw = "its link address " + macText(h.link.Addr) + " never announced the receiver's address"
			}
			why = "no zero-window stall, no path RTT given, and " + lw
		}
	}
	return fmt.Sprintf("receiver-hops is open — the acknowledger is on the sender's link, %s, with %s", where, why)
}

// Mark is what outputs write beside a rate of v's acknowledged bytes:
// "PEP" when a PEP likely acknowledged them (Likely), "PEP?" when one may
// have (Possible), "" otherwise.
func (v Verdict) Mark() string {
	switch {
	case v.Likely:
		return "PEP"
	case v.Possible:
		return "PEP?"
	}
	return ""
}

// Flagged reports that v's acknowledged bytes are not known to be
// end-to-end: Likely or Possible.
func (v Verdict) Flagged() bool { return v.Likely || v.Possible }

// PathCleared reports whether the path RTT given (Options.PathRTT) is what
// kept v from Possible: receiver-hops found the acknowledger on the
// sender's link, and the connection's RTT, at least a quarter of the path
// RTT, says it is the far end. Outputs that drop a "PEP?" mark for it say
// so (flows' note).
func (v Verdict) PathCleared() bool { return v.pathCleared }

// Given is the sentence a PEP note adds (with a leading space) when the
// path RTT given proves the split (Proven): the verdict is only as sure as
// that RTT; "" otherwise.
func (v Verdict) Given() string {
	if !v.Proven() {
		return ""
	}
	return fmt.Sprintf(" This rests on the path RTT given, %s, over 4 × the connection's.", rttText(v.FarRTT))
}

// Caveat is the sentence a PEP note adds (with a leading space) when the
// only support is an on-link acknowledger that closed its window
// (receiver-hops and zero-window-stall): a receiving application on the
// sender's link that stops reading shows the same; "" otherwise.
func (v Verdict) Caveat() string {
	if v.Likely && !v.Proven() && slices.Equal(v.Supporting(), []string{"receiver-hops", "zero-window-stall"}) {
		return " Both signs are of one host on the sender's link that closed its window: a receiving application there that stops reading shows the same, and only a capture behind it tells them apart."
	}
	return ""
}

// Proven reports that the path RTT given (Options.PathRTT) proves the
// split: the connection's RTT is below a quarter of it
// (conn-rtt-vs-path). Without it a verdict is "likely" at best.
func (v Verdict) Proven() bool {
	for _, it := range v.Evidence {
		if it.Name == "conn-rtt-vs-path" && it.Supports {
			return true
		}
	}
	return false
}

// NoteOn is AckNote prefixed with connection index conn ("conn 3: …"),
// the form of the CLI's notes; "" when v is neither Likely nor Possible.
func (v Verdict) NoteOn(conn int) string {
	if !v.Flagged() {
		return ""
	}
	return fmt.Sprintf("conn %d: %s", conn, v.AckNote())
}

// DetectIn is DetectWith for connection r of report rep, with the
// capture's link-layer evidence (LinksOf rep, built once per report and
// kept) when it could change the verdict (LinkMatters) and o carries
// none. With a nil rep the verdict is DetectWith's: an on-link
// acknowledger stays Possible, its evidence saying that the link layer was
// not read.
func DetectIn(rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, d flows.Direction, o Options) Verdict {
	v := DetectWith(r, d, o)
	if !v.LinkMatters() || o.Links != nil || rep == nil {
		return v
	}
	return v.WithLinks(LinksOf(rep))
}

// Acknowledger returns the one-capture verdict for the direction of r that
// carried more payload, for listings of many connections: the verdict and
// its criteria's names (Supporting, NoteOn), without the sentences of
// Item.Observed and Item.Expected, which cost more than the rest of a
// short connection's row. pathRTT is Options.PathRTT (0: unknown).
func Acknowledger(r *tcpanalysis.ConnResult, pathRTT time.Duration) Verdict {
	return AcknowledgerIn(r, nil, pathRTT)
}

// AcknowledgerIn is Acknowledger with the verdict's Evidence in buf's
// array when its capacity is at least 7 (a listing reuses one buf for
// every connection: the verdict is then valid until the next call; Keep
// copies it).
func AcknowledgerIn(r *tcpanalysis.ConnResult, buf []Item, pathRTT time.Duration) Verdict {
	return DetectWith(r, DataDir(r), Options{PathRTT: pathRTT, terse: true, evidence: buf})
}

// DataDir is the direction of r whose acknowledger the one-verdict-per-
// connection outputs judge (flows' mark, the HTML report's picker): the
// one that carried more unique payload, a→b on a tie.
func DataDir(r *tcpanalysis.ConnResult) flows.Direction {
	if r.Dir[flows.BtoA].Unique > r.Dir[flows.AtoB].Unique {
		return flows.BtoA
	}
	return flows.AtoB
}

// Keep returns v with its Evidence in an array of its own, for a verdict
// of AcknowledgerIn kept past the next call.
func (v Verdict) Keep() Verdict {
	v.Evidence = slices.Clone(v.Evidence)
	if v.hops != nil {
		h := *v.hops
		v.hops = &h
	}
	return v
}

// NeedsDetail reports whether r's verdict v for direction d could change
// with the connection's detail kept (tcpanalysis Options.Keep): a
// zero-window stall still open at the end of the capture is visible only
// with detail, so it does when zero-window events were seen and either
// receiver-hops found an on-link acknowledger at a capture beside the
// sender (it counts with a stall) or one criterion supports a split. The
// RTT criteria need no detail: they read the median estimate every
// analysis keeps (stat), the same with or without it.
func NeedsDetail(r *tcpanalysis.ConnResult, d flows.Direction, v Verdict) bool {
	if v.Likely || r.Counts[d][tcpanalysis.ZeroWindow] == 0 {
		return false
	}
	return v.onLinkAcker || len(v.Supporting()) > 0
}
