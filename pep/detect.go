package pep

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Ratio is the factor by which two RTTs must differ before a criterion
// counts them as different (dimensionless). RTTs of one path vary by
// queueing and delayed ACKs, rarely by a factor of 4; a PEP 5 ms away on a
// 600 ms path makes them differ by about 50.
const Ratio = 4

// Options tune DetectWith. The zero value uses only the ConnResult.
type Options struct {
	// PathRTT is the known end-to-end RTT of the path (for the satellite
	// testbed 2 × (LAN + satellite one-way delay)); 0 means unknown and
	// turns off the conn-rtt-vs-path criterion.
	PathRTT time.Duration
	// Packets are per-packet TTL and IP ID statistics of the same
	// connection from Evidence; nil turns off the criteria that need
	// them.
	Packets *PacketStats
	// Links is the capture's link-layer evidence (LinksOf the connection's
	// report): whose interface an acknowledger on the sender's link is
	// (link-address). nil leaves such an acknowledger undecided
	// (Verdict.Possible).
	Links *Links
	// terse leaves Item.Observed and Item.Expected empty: a listing of
	// many connections (Acknowledger) needs only the verdict and the
	// criteria's names, not their sentences.
	terse bool
	// evidence, when its capacity holds every criterion, takes the
	// verdict's Evidence instead of an allocation (AcknowledgerIn).
	evidence []Item
}

// words formats an Item's sentences, or nothing when a verdict is terse.
type words bool

func (w words) f(format string, a ...any) string {
	if w {
		return ""
	}
	return fmt.Sprintf(format, a...)
}

// hs is rttText(d), "not captured" when !ok, or "" when w is terse.
func (w words) hs(d time.Duration, ok bool) string {
	switch {
	case bool(w):
		return ""
	case !ok:
		return "not captured"
	}
	return rttText(d)
}

// mac is macText(m), or "" when w is terse: f's arguments are evaluated
// before f knows to drop them.
func (w words) mac(m [6]byte) string {
	if w {
		return ""
	}
	return macText(m)
}

// rtt is rttText(d), or "" when w is terse: the arguments of f are
// evaluated even when f formats nothing.
func (w words) rtt(d time.Duration) string {
	if w {
		return ""
	}
	return rttText(d)
}

// Item is one piece of evidence for or against a split-TCP PEP.
type Item struct {
	Name     string // criterion name, as listed in the package doc
	Observed string // what the capture shows, with units
	Expected string // what an end-to-end connection would show, with units
	// Value is the observed number in Unit ("ms", "hops", "fraction"),
	// for tests and machine-readable output.
	Value float64
	Unit  string
	// Supports reports that the observation points to a PEP.
	Supports bool
	// Open reports that the criterion could not decide: what the capture
	// shows fits a PEP and an ordinary receiver alike (receiver-hops: an
	// acknowledger on the sender's link, slower than the sender, without a
	// stall, a path RTT or link-layer evidence to tell which). The
	// verdict is then Possible.
	Open bool
}

// Verdict is the outcome of Detect for one data direction.
type Verdict struct {
	Dir flows.Direction // data direction examined
	// Likely reports that a split-TCP PEP probably acknowledges Dir's data
	// (see the package doc for the rule).
	Likely bool
	// Possible reports that the capture cannot tell whether a PEP
	// acknowledges Dir's data: the acknowledger is on the sender's link
	// (receiver-hops is Open) and nothing in the capture says whether it
	// is the receiver (an on-link server) or a box answering for a remote
	// one. Never set with Likely. Its acknowledged bytes may be bytes a
	// PEP accepted: outputs mark them "PEP?" and say how to decide
	// (PossibleNote: --path-rtt, or a capture behind the acknowledger).
	Possible bool
	Evidence []Item
	// LocalRTT is the RTT from the capture point to the host that
	// acknowledges Dir's data and back (the PEP when Likely, else the
	// receiver): Dir's median ACK RTT, else TS, else handshake RTT. 0 if
	// no sample exists.
	LocalRTT time.Duration
	// FarRTT is the best estimate of the end-to-end RTT between the two end
	// hosts: Options.PathRTT when given; else, when neither Likely nor
	// Possible, the connection's own RTT (toward receiver + toward
	// sender); 0 when unknown (Likely or Possible and no PathRTT: one
	// capture on the near side of a PEP does not see the far half).
	FarRTT time.Duration
	// PathGiven reports that FarRTT is Options.PathRTT, given by the
	// caller, not estimated from the capture.
	PathGiven bool

	// onLinkAcker: receiver-hops found the acknowledger on the sender's
	// link and slower than the sender, and would support a PEP if
	// zero-window-stall did (NeedsDetail: a stall may show with detail).
	onLinkAcker bool
	// pathCleared: the path RTT given decided an open receiver-hops
	// against a PEP (PathCleared).
	pathCleared bool
	// terse: the verdict's Item sentences were left empty (Options.terse);
	// WithLinks keeps them so.
	terse bool
	// hops holds receiver-hops' inputs when it found such an
	// acknowledger (onLinkAcker or supporting through a stall), so that
	// WithLinks can judge it again with link-layer evidence; nil
	// otherwise.
	hops *hopsIn
	// pathRTT and connRTT are Options.PathRTT and the connection's RTT
	// (toward receiver + toward sender; valid iff connOK), for decide.
	pathRTT, connRTT time.Duration
	connOK           bool
}

// Detect is DetectWith without options: it uses only what r holds. r should
// come from tcpanalysis with Options.Detail (or Keep for this connection)
// so that medians can be taken; without samples it falls back to means.
func Detect(r *tcpanalysis.ConnResult, d flows.Direction) Verdict {
	return DetectWith(r, d, Options{})
}

// maxCriteria is how many Items DetectWith may give a verdict.
const maxCriteria = 7

// DetectWith weighs the evidence of a split-TCP PEP acknowledging direction
// d's data of r; see the package doc for each criterion.
func DetectWith(r *tcpanalysis.ConnResult, d flows.Direction, o Options) Verdict {
	v := Verdict{Dir: d, Evidence: o.evidence[:0], terse: o.terse}
	if r.Dir[d].DataPkts == 0 || r.Dir[d].AckedBytes == 0 {
		// No data in d, or none acknowledged (a SYN's payload alone):
		// nothing a PEP could have accepted, and a goodput of 0 to flag
		// (every output, as flows, judges none).
		return v
	}
	if cap(v.Evidence) < maxCriteria {
		v.Evidence = make([]Item, 0, maxCriteria)
	}
	w := words(o.terse)
	towardR, okR := towards(r, d)
	towardS, okS := towards(r, d.Reverse())
	v.LocalRTT = towardR
	connRTT := towardR + towardS

	if o.PathRTT > 0 && okR {
		// The faster of the data's connection RTT (medians) and the
		// handshake's: a queue before the acknowledger (a slow LAN
		// feeding a PEP) lengthens every data sample, not the handshake
		// a PEP answers itself; a PEP that lets the handshake through
		// answers the data near. Either below a quarter of the path RTT
		// is an answer the far end cannot give.
		fast, how := connRTT, "data"
		hsR, okHR := handshakeToward(r, d)
		hsS, okHS := handshakeToward(r, d.Reverse())
		if hsRTT := hsR + hsS; okHR && okHS && hsRTT < fast {
			fast, how = hsRTT, "handshake"
		}
		it := Item{
			Name: "conn-rtt-vs-path", Unit: "ms", Value: ms(fast),
			Observed: w.f("connection RTT %s by the %s (data: toward receiver %s + toward sender %s; handshake %s)", w.rtt(fast), how, w.rtt(towardR), w.rtt(towardS), w.hs(hsR+hsS, okHR && okHS)),
			Expected: w.f("≥ path RTT / %d = %s (path RTT %s)", Ratio, w.rtt(o.PathRTT/Ratio), w.rtt(o.PathRTT)),
			Supports: fast*Ratio < o.PathRTT,
		}
		if it.Supports && okS && towardR*Ratio < towardS {
			// The receiver answers more than Ratio× faster than the
			// sender's side: the capture is at (or beside) the
			// receiver, and these ACKs are its own. A short connection
			// says the data came from a near sender — a PEP's second
			// leg, in a download through one — whose bytes the receiver
			// did take: not bytes a PEP accepted.
			it.Supports = false
			it.Observed += w.f("; but the receiver answers in %s, over %d× faster than the sender's side (%s): the capture is at the receiver, whose own ACKs these are — a PEP may have sent this data (a download through one), and what the receiver acknowledged it received", w.rtt(towardR), Ratio, w.rtt(towardS))
		}
		v.Evidence = append(v.Evidence, it)
	}

	var rp *DirPackets // the receiver's per-packet TTLs and IP IDs, if given
	if o.Packets != nil {
		rp = &o.Packets.Dir[d.Reverse()]
	}

	hs, hsOK := handshakeToward(r, d)
	if ack := stat(r, d, tcpanalysis.MethodACK); ack.n > 0 && hsOK {
		v.Evidence = append(v.Evidence, ackVsHandshake(ack, hs, rp, w))
	}

	var stall Item
	if okR {
		longest := longestZeroWindow(r, d)
		stall = Item{Name: "zero-window-stall", Unit: "ms", Value: ms(longest), Supports: longest > towardR*Ratio}
		if !w { // a terse verdict's sentences are empty: their arguments not even evaluated
			stall.Observed = w.f("longest zero-window period %s", w.rtt(longest))
			stall.Expected = w.f("none longer than %d × toward-receiver RTT = %s", Ratio, w.rtt(towardR*Ratio))
		}
	}

	if ttl := r.Dir[d.Reverse()].MaxTTL; ttl != 0 && okR && okS {
		// On the stack: kept (copied to the heap) only for a candidate,
		// a fraction of a LAN capture's connections.
		hv := hopsIn{rttl: ttl, sttl: r.Dir[d].MaxTTL, towardR: towardR, towardS: towardS, stall: stall.Supports,
			recv: r.Conn.Half[d.Reverse()].Addr.Addr(), send: r.Conn.Half[d].Addr.Addr(), src: SourceOf(r, d.Reverse())}
		it, pending, candidate := receiverHops(&hv, o.Links, w)
		v.Evidence = append(v.Evidence, it)
		if candidate {
			h := new(hopsIn)
			*h = hv
			v.hops = h
			if li, ok := h.linkItem(w); ok {
				v.Evidence = append(v.Evidence, li)
			}
		}
		v.onLinkAcker = pending
	}

	if okR {
		v.Evidence = append(v.Evidence, stall)
	}

	if rp != nil {
		if rp.SynSeen && rp.Pkts > 0 {
			diff := int(rp.MaxTTL) - int(rp.SynTTL)
			if m := int(rp.SynTTL) - int(rp.MinTTL); m > diff {
				diff = m
			}
			two, why := rp.twoHosts()
			v.Evidence = append(v.Evidence, Item{
				Name: "ttl-synack-vs-ack", Unit: "hops", Value: float64(diff),
				Observed: w.f("receiver's SYN-ACK TTL %d, later packets TTL %d..%d: %s", rp.SynTTL, rp.MinTTL, rp.MaxTTL, why),
				Expected: "SYN-ACK's TTL within the later range or its IP ID going on, one initial TTL (one host)",
				Supports: two,
			})
		}
		if steps := rp.IPIDSteps + rp.IPIDJumps; steps >= 4 {
			f := float64(rp.IPIDJumps) / float64(steps)
			v.Evidence = append(v.Evidence, Item{
				Name: "ipid-streams", Unit: "fraction", Value: f,
				Observed: w.f("%d of %d consecutive receiver IP IDs do not step by 1..%d", rp.IPIDJumps, steps, IPIDStep),
				Expected: "≤ 0.25 (one counter)",
				Supports: f > 0.25,
			})
		}
	}
	v.pathRTT, v.connRTT, v.connOK = o.PathRTT, connRTT, okR
	v.decide(w)
	return v
}

// decide sets Likely, Possible, FarRTT and PathGiven from v.Evidence: Likely
// when conn-rtt-vs-path supports or two criteria do; else Possible when
// receiver-hops is Open and no path RTT was given — a path RTT decides an
// on-link acknowledger too: a connection RTT of at least a quarter of it
// is the whole path's, not a PEP's on the sender's link (receiver-hops is
// then no longer Open and says that conn-rtt-vs-path decided).
func (v *Verdict) decide(w words) {
	n, pathProof := 0, false
	hops := -1 // receiver-hops, when Open
	for i, it := range v.Evidence {
		if it.Supports {
			n++
			pathProof = pathProof || it.Name == "conn-rtt-vs-path"
		}
		if it.Open && it.Name == "receiver-hops" {
			hops = i
		}
	}
	misfit := false // the path RTT given does not fit this connection
	if pathProof && v.hops != nil && v.hops.link.Own != "" {
		// The link layer shows the acknowledger is the receiver's own
		// interface: a path RTT that calls it too fast for the far end
		// does not fit this connection (a LAN host given a satellite
		// path's RTT). The direct evidence stands.
		for i := range v.Evidence {
			if it := &v.Evidence[i]; it.Name == "conn-rtt-vs-path" && it.Supports {
				it.Supports = false
				it.Observed += w.f("; but the link layer shows the receiver's own interface answering (link-address): the path RTT given does not fit this connection, and decides nothing")
				n--
			}
		}
		pathProof, misfit = false, true
	}
	v.Likely = pathProof || n >= 2
	v.Possible, v.pathCleared = false, false
	if hops >= 0 {
		switch {
		case v.Likely:
		case v.pathRTT > 0:
			v.pathCleared = true
			v.Evidence[hops].Observed += w.f("; decided by conn-rtt-vs-path: the connection's RTT is at least a quarter of the path RTT given, so the acknowledger is the far end, not a PEP on this link")
		default:
			v.Possible = true
		}
		if !v.Possible {
			// Decided by another criterion: no criterion is left open.
			for i := range v.Evidence {
				v.Evidence[i].Open = false
			}
		}
	}
	v.FarRTT, v.PathGiven = 0, false
	switch {
	case v.pathRTT > 0 && !misfit:
		v.FarRTT, v.PathGiven = v.pathRTT, true
	case !v.Likely && !v.Possible && v.connOK:
		v.FarRTT = v.connRTT
	}
}

// Hops returns how many routers decremented ttl, assuming the sender
// started from the smallest common initial TTL (32, 64, 128, 255) not
// below ttl.
func Hops(ttl uint8) int {
	for _, init := range []int{32, 64, 128, 255} {
		if int(ttl) <= init {
			return init - int(ttl)
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// rttText writes a duration of the evidence sentences with three
// significant digits, in ms from 1 ms, in µs below (a LAN or loopback path:
// "12.3 µs", not "0.0 ms"), in ns below 1 µs: a comparison such as "min ACK
// RTT 8.41 µs ≥ handshake RTT / 4 = 5.02 µs" reads as it was decided.
func rttText(d time.Duration) string {
	v, unit := ms(d), "ms"
	switch {
	case d == 0:
		return "0 ms"
	case d < time.Microsecond && d > -time.Microsecond:
		return fmt.Sprintf("%d ns", int64(d))
	case d < time.Millisecond && d > -time.Millisecond:
		v, unit = float64(d)/float64(time.Microsecond), "µs"
	}
	prec := 0
	switch a := math.Abs(v); {
	case a < 9.995:
		prec = 2
	case a < 99.95:
		prec = 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " " + unit
}

// rttStat summarises one direction's samples of one method; est reports
// that p50 is the median estimate (tcpanalysis.RTTAgg.MedianEstimate,
// within MedianRelErr), not the exact median.
type rttStat struct {
	n        int
	min, p50 time.Duration
	est      bool
}

// stat returns the samples of method m for data direction d, from RTTAgg:
// their count, minimum and median — the median estimate every analysis
// keeps (tcpanalysis.RTTAgg.MedianEstimate: exact up to 8 samples, then
// within tcpanalysis.MedianRelErr), whether or not the samples were kept,
// so that every output judges on the same number (docs/metrics.md#pep).
// A result with samples but no RTTAgg (built by hand) gives their exact
// median.
func stat(r *tcpanalysis.ConnResult, d flows.Direction, m tcpanalysis.Method) rttStat {
	if a := &r.RTTAgg[d][m]; a.N > 0 {
		p50, exact, _ := a.MedianEstimate()
		return rttStat{int(a.N), a.Min, p50, !exact}
	}
	var ds []time.Duration
	for _, s := range r.RTT {
		if s.Dir == d && s.Method == m {
			ds = append(ds, s.RTT)
		}
	}
	if n, lo, p50, _, _, _, ok := tcpanalysis.Percentiles(ds); ok {
		return rttStat{n, lo, p50, false}
	}
	return rttStat{}
}

// towards returns the RTT from the capture point to the receiver of
// direction d's data (or TSvals, or SYN) and back: the median ACK sample of
// d, else the median TS sample, else the handshake sample.
func towards(r *tcpanalysis.ConnResult, d flows.Direction) (time.Duration, bool) {
	for _, m := range towardMethods {
		if s := stat(r, d, m); s.n > 0 {
			return s.p50, true
		}
	}
	return 0, false
}

// towardMethods are the RTT methods a toward-RTT reads, the first with
// samples: ACK, then TS, then the handshake (towards, exactToward).
var towardMethods = [...]tcpanalysis.Method{tcpanalysis.MethodACK, tcpanalysis.MethodTS, tcpanalysis.MethodHandshake}

// handshakeToward returns the handshake RTT from the capture point to the
// receiver of direction d and back.
func handshakeToward(r *tcpanalysis.ConnResult, d flows.Direction) (time.Duration, bool) {
	if d == flows.AtoB {
		return r.Handshake.SynToSynAck, r.Handshake.SynToSynAckOk
	}
	return r.Handshake.SynAckToAck, r.Handshake.SynAckToAckOk
}

// longestZeroWindow returns the longest zero-window period of direction d.
// A period still open at the end of the capture ends at the connection's
// last packet. tcpanalysis lists only closed periods in ZeroWindows, so an
// open one is rebuilt from the zero_window events (kept with Detail) that
// follow the last closed period.
func longestZeroWindow(r *tcpanalysis.ConnResult, d flows.Direction) time.Duration {
	var longest time.Duration
	var lastEnd capture.Timestamp
	for _, z := range r.ZeroWindows {
		if z.Dir != d {
			continue
		}
		end := z.End
		if end == 0 {
			end = r.Conn.Last
		}
		longest = max(longest, end.Sub(z.Start))
		lastEnd = max(lastEnd, end)
	}
	for _, e := range r.Events {
		if e.Dir == d && e.Class == tcpanalysis.ZeroWindow && e.Time > lastEnd {
			longest = max(longest, r.Conn.Last.Sub(e.Time))
			break
		}
	}
	return longest
}
