package pep

import (
	"fmt"
	"net/netip"
	"time"
)

// initialTTL returns the initial TTL the sender of a packet with TTL ttl
// most likely used: the smallest common initial TTL (32, 64, 128, 255) not
// below ttl, as Hops assumes.
func initialTTL(ttl uint8) int { return int(ttl) + Hops(ttl) }

// twoHosts reports whether dp's TTLs show more than one host speaking for
// this side, and says why in words: the SYN (SYN-ACK) carries a TTL that
// none of the later packets carries (outside their range MinTTL..MaxTTL),
// or the later packets come from two initial TTLs (two stacks). One host
// whose route changes (an ns-3 AODV or OLSR run) moves its TTL inside one
// range that also holds its SYN-ACK's, from one initial TTL, so a TTL
// that varies is not two hosts by itself; when the route changes between
// the SYN-ACK and the next packet (ns-3 AODV: SYN-ACK TTL 61, later 63),
// the SYN-ACK's IPv4 ID continuing in the later packets (idContinues)
// still shows one host.
func (dp *DirPackets) twoHosts() (bool, string) {
	if !dp.SynSeen || dp.Pkts == 0 {
		return false, "no SYN-ACK TTL or no later packet"
	}
	if lo, hi := initialTTL(dp.MinTTL), initialTTL(dp.MaxTTL); lo != hi {
		return true, fmt.Sprintf("two initial TTLs (%d, %d) later: two hosts", lo, hi)
	}
	if dp.SynTTL < dp.MinTTL || dp.SynTTL > dp.MaxTTL {
		if dp.idContinues() {
			return false, fmt.Sprintf("SYN-ACK's TTL not among the later ones, but its IP ID %d goes on (%d): one host, route changed", dp.synID, dp.firstID)
		}
		return true, "no later packet has the SYN-ACK's TTL: two hosts"
	}
	return false, "SYN-ACK's TTL among the later ones (one host, route may change)"
}

// ackVsHandshake is the ack-rtt-vs-handshake criterion: data ACKs far
// faster than the handshake (min ACK RTT × Ratio < handshake RTT hs) point
// to a PEP that let the handshake through to a farther host only when the
// capture shows that another host answered the handshake (rp.twoHosts,
// from per-packet TTLs). A handshake answered by the host that also
// acknowledges the data was slowed by that host's first-packet costs —
// ARP resolution, 802.11 association or block-ack setup, a MANET route
// discovery —, not by a path the data skip; without per-packet TTLs (rp
// nil: Detect) the capture cannot tell the two apart, and the criterion
// does not count.
func ackVsHandshake(ack rttStat, hs time.Duration, rp *DirPackets, w words) Item {
	it := Item{Name: "ack-rtt-vs-handshake", Unit: "ms", Value: ms(ack.min)}
	if !w { // a terse verdict's sentences are empty: their arguments not even evaluated
		it.Observed = w.f("min ACK RTT %s (median %s, %d samples)", w.rtt(ack.min), w.rtt(ack.p50), ack.n)
		it.Expected = w.f("≥ handshake RTT / %d = %s (handshake %s), or one host answering SYN and data", Ratio, w.rtt(hs/Ratio), w.rtt(hs))
	}
	if ack.min*Ratio >= hs {
		return it
	}
	switch {
	case rp == nil || !rp.SynSeen || rp.Pkts == 0:
		it.Observed += "; no per-packet TTLs: a first-packet delay (ARP, 802.11 setup, route discovery) cannot be ruled out"
	default:
		two, why := rp.twoHosts()
		it.Supports = two
		switch {
		case bool(w):
		case two:
			it.Observed += w.f("; SYN-ACK TTL %d, later %d..%d: %s", rp.SynTTL, rp.MinTTL, rp.MaxTTL, why)
		default:
			it.Observed += w.f("; SYN-ACK TTL %d, later %d..%d: one host, so a first-packet delay (ARP, link setup, route discovery), not a farther path", rp.SynTTL, rp.MinTTL, rp.MaxTTL)
		}
	}
	return it
}

// hopsIn are receiver-hops' inputs: the receiver's and the sender's
// highest TTLs (rttl, sttl; 0 unknown), the RTTs from the capture point
// toward each, whether zero-window-stall supports, the two addresses (to
// look the acknowledger up in the link layer's evidence) and, once judged,
// what the link layer says (link, linkRead: Links were given).
type hopsIn struct {
	rttl, sttl       uint8
	towardR, towardS time.Duration
	stall            bool
	recv, send       netip.Addr
	src              Source // the receiver's direction's link-layer sender (SourceOf)
	link             LinkFacts
	linkRead         bool
}

// receiverHops is the receiver-hops criterion for h. It counts only at a
// capture beside the sender (the sender's packets carry their initial
// TTL), where a receiver 0 hops away is on the sender's own link: that is
// a PEP on that link, or an ordinary on-link server, which hops alone
// cannot tell apart. A loopback receiver address (127/8, ::1) is the
// capturing host's own: no PEP. When the acknowledger answers more than
// Ratio × slower than the sender (towardR, towardS) — candidate — the
// evidence that decides is, in order: the link layer (links, LinkFacts) showing
// the acknowledger's link address announcing the receiver's address as its
// own (an ARP request, an IPv4 broadcast: the receiver itself, no PEP);
// then a zero-window stall (stall), which supports a PEP: an on-link box
// that accepts data at link speed and cannot pass it on. Without either it
// is Open: pending reports that, and the verdict is Possible unless a path
// RTT decides. (That link address also sending the receiver's packets
// with a decremented TTL decides nothing: a host forwarding ports to a
// container behind it does the same, LinkFacts.Forwards.) At any other
// vantage toward S is a network RTT; a 0-hop receiver answering Ratio ×
// slower than that delays its ACKs, which a PEP (acknowledging at once)
// does not, so it does not count.
func receiverHops(h *hopsIn, links *Links, w words) (it Item, pending, candidate bool) {
	hops := Hops(h.rttl)
	it = Item{Name: "receiver-hops", Unit: "hops", Value: float64(hops)}
	if !w { // a terse verdict's sentences are empty: their arguments not even evaluated
		it.Observed = w.f("receiver's max TTL %d = %d hops from initial %d; toward receiver %s, toward sender %s", h.rttl, hops, hops+int(h.rttl), w.rtt(h.towardR), w.rtt(h.towardS))
		it.Expected = w.f("≥ 1 hop; beside the sender: < %d× slower than the sender, or its own link address (link-address), no stall", Ratio)
	}
	slower := h.towardS*Ratio < h.towardR
	switch {
	case hops != 0:
		return it, false, false
	case !slower:
		if !w {
			it.Observed += w.f("; answers < %d× slower than the sender", Ratio)
		}
		return it, false, false
	case h.sttl == 0:
		it.Observed += "; sender's TTL unknown: vantage unknown"
		return it, false, false
	case Hops(h.sttl) != 0:
		if !w {
			it.Observed += w.f("; sender %d hops away: a 0-hop receiver slower than the sender delays its ACKs, a PEP would not", Hops(h.sttl))
		}
		return it, false, false
	}
	if h.recv.Unmap().IsLoopback() {
		// 127/8, ::1: the receiver's address is the capturing host's own;
		// a PEP answers for a remote address.
		if !w {
			it.Observed += w.f("; beside the sender: the receiver's address %s is a loopback address, the capturing host's own: the receiver itself, not a PEP", h.recv)
		}
		return it, false, false
	}
	h.linkRead = links != nil
	h.link = links.Facts(h.src)
	judgeHops(&it, h, w)
	return it, it.Open, true
}

// judgeHops sets it (receiver-hops of an acknowledger on the sender's link,
// slower than the sender) from the stall and the link layer's facts.
func judgeHops(it *Item, h *hopsIn, w words) {
	it.Supports, it.Open = false, false
	switch {
	case h.link.Own != "":
		if !w {
			it.Observed += w.f("; beside the sender: on its link, and its link address %s sent the receiver's own %s (link-address): the receiver itself, not a PEP", w.mac(h.link.Addr), h.link.Own)
		}
	case h.stall:
		it.Supports = true
		it.Observed += "; beside the sender: an on-link acknowledger that stalls (zero-window-stall)"
	default:
		it.Open = true
		if w {
			return // a terse verdict's sentences are empty
		}
		why := "link layer not read"
		if h.linkRead {
			why = h.link.Why
			if h.link.Known {
				why = w.f("its link address %s never announced the receiver's address", w.mac(h.link.Addr))
			}
		}
		it.Observed += w.f("; beside the sender: on its link, as an on-link server is, with no zero-window stall (%s): unknown whether it is the receiver or a PEP", why)
	}
}

// linkItem is the link-address criterion of h (judged by receiverHops),
// when the link layer was read and named the acknowledger's address.
func (h *hopsIn) linkItem(w words) (Item, bool) {
	if !h.linkRead || !h.link.Known {
		return Item{}, false
	}
	f := h.link
	it := Item{Name: "link-address", Unit: "hops", Expected: "the receiver's own link address: it announces the receiver's address (ARP request, IPv4 broadcast)"}
	switch {
	case f.Own != "":
		it.Observed = w.f("acknowledger's link address %s sent the receiver's own %s: the receiver's interface", w.mac(f.Addr), f.Own)
	case f.Forwards:
		it.Open, it.Value = true, float64(int(f.HighTTL)-int(f.FwdTTL))
		it.Observed = w.f("acknowledger's link address %s sent the receiver's TCP packets with TTL %d and also with TTL %d: a router answering for a host behind it, or a host forwarding some ports to a container behind it (NAT) — undecided", w.mac(f.Addr), f.HighTTL, f.FwdTTL)
	default:
		it.Open = true
		it.Observed = w.f("acknowledger's link address %s: no ARP request or broadcast from the receiver's address in the capture", w.mac(f.Addr))
	}
	return it, true
}

// WithLinks returns v judged again with the capture's link-layer evidence
// l: when receiver-hops found an acknowledger on the sender's link (an
// Open criterion, or one supported by a stall alone), its link-address
// evidence may make the verdict Likely (the acknowledger forwards the
// receiver's packets) or rule the PEP out (it announces the receiver's
// address as its own). Other verdicts are returned as they are. v's
// Evidence is copied, not changed.
func (v Verdict) WithLinks(l *Links) Verdict {
	if v.hops == nil || l == nil {
		return v
	}
	h := *v.hops
	h.linkRead, h.link = true, l.Facts(h.src)
	out := v
	out.hops = &h
	out.Evidence = make([]Item, 0, len(v.Evidence)+1)
	w := words(v.terse)
	for _, it := range v.Evidence {
		switch it.Name {
		case "link-address":
			continue
		case "receiver-hops":
			it.Observed = ""
			if !w {
				it.Observed = w.f("receiver's max TTL %d = %d hops from initial %d; toward receiver %s, toward sender %s", h.rttl, Hops(h.rttl), Hops(h.rttl)+int(h.rttl), w.rtt(h.towardR), w.rtt(h.towardS))
			}
			judgeHops(&it, &h, w)
			out.Evidence = append(out.Evidence, it)
			if li, ok := h.linkItem(w); ok {
				out.Evidence = append(out.Evidence, li)
			}
			continue
		}
		out.Evidence = append(out.Evidence, it)
	}
	out.decide(w)
	out.onLinkAcker = out.Possible
	return out
}

// LinkMatters reports whether the capture's link-layer evidence
// (WithLinks) could change v: receiver-hops found an acknowledger on the
// sender's link, the link layer was not read for it yet, and v is
// flagged (the link layer only ever rules a PEP out: an unflagged verdict,
// a path RTT's "the far end answered" among them, stays).
func (v Verdict) LinkMatters() bool { return v.hops != nil && !v.hops.linkRead && v.Flagged() }
