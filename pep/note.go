package pep

import (
	"fmt"
	"slices"
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
//
// The note says "likely" unless the path RTT given (Options.PathRTT)
// proves the split (conn-rtt-vs-path), and when the only support is an
// on-link acknowledger that stalled (receiver-hops and zero-window-stall),
// it says that a receiving application that stops reading on the
// sender's link shows the same two signs: one capture cannot tell them
// apart (cases/zero_window_probe: a plain receiver closing its window).
func (v Verdict) AckNote() string {
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
// carried more payload, for listings of many connections: the verdict and
// its criteria's names (Supporting, NoteOn), without the sentences of
// Item.Observed and Item.Expected, which cost more than the rest of a
// short connection's row.
func Acknowledger(r *tcpanalysis.ConnResult) Verdict { return AcknowledgerIn(r, nil) }

// AcknowledgerIn is Acknowledger with the verdict's Evidence in buf's
// array when its capacity is at least 6 (a listing reuses one buf for
// every connection: the verdict is then valid until the next call).
func AcknowledgerIn(r *tcpanalysis.ConnResult, buf []Item) Verdict {
	d := flows.AtoB
	if r.Dir[flows.BtoA].Unique > r.Dir[flows.AtoB].Unique {
		d = flows.BtoA
	}
	return DetectWith(r, d, Options{terse: true, evidence: buf})
}

// NeedsDetail reports whether r's verdict v for direction d could change
// with the connection's detail kept (tcpanalysis Options.Keep) and its RTT
// quantiles (Options.RTTQuantiles): receiver-hops found an on-link
// acknowledger at a capture beside the sender and zero-window events were
// seen (it counts with a stall, which may be still open at the end and
// visible only with detail); or one criterion supports a split, and
// either zero-window events were seen (a stall still open at the end is
// visible only with detail) or an RTT criterion was judged on the mean
// because neither samples nor quantiles were kept (the verdict's rule is
// the median; a few long samples pull the mean past it).
func NeedsDetail(r *tcpanalysis.ConnResult, d flows.Direction, v Verdict) bool {
	if v.Likely {
		return false
	}
	zw := r.Counts[d][tcpanalysis.ZeroWindow] > 0
	if v.onLinkAcker && zw {
		// receiver-hops waits for a stall that detail may show.
		return true
	}
	if len(v.Supporting()) == 0 {
		return false
	}
	return zw || meanOnly(r, d) || meanOnly(r, d.Reverse())
}

// meanOnly reports whether the RTT stat of direction d came from a mean
// (stat's last resort): the method it reads has samples counted but
// neither kept nor in bounded quantiles.
func meanOnly(r *tcpanalysis.ConnResult, d flows.Direction) bool {
	for _, m := range []tcpanalysis.Method{tcpanalysis.MethodACK, tcpanalysis.MethodTS, tcpanalysis.MethodHandshake} {
		for _, s := range r.RTT {
			if s.Dir == d && s.Method == m {
				return false
			}
		}
		if a := r.RTTAgg[d][m]; a.N > 0 {
			_, ok := a.Quantile(0.5)
			return !ok && a.N > 1
		}
	}
	return false
}
