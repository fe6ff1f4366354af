package pep

import (
	"fmt"
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
	it := Item{
		Name: "ack-rtt-vs-handshake", Unit: "ms", Value: ms(ack.min),
		Observed: w.f("min ACK RTT %s (median %s, %d samples)", w.rtt(ack.min), w.rtt(ack.p50), ack.n),
		Expected: w.f("≥ handshake RTT / %d = %s (handshake %s), or one host answering SYN and data", Ratio, w.rtt(hs/Ratio), w.rtt(hs)),
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
		if two {
			it.Observed += w.f("; SYN-ACK TTL %d, later %d..%d: %s", rp.SynTTL, rp.MinTTL, rp.MaxTTL, why)
		} else {
			it.Observed += w.f("; SYN-ACK TTL %d, later %d..%d: one host, so a first-packet delay (ARP, link setup, route discovery), not a farther path", rp.SynTTL, rp.MinTTL, rp.MaxTTL)
		}
	}
	return it
}

// receiverHops is the receiver-hops criterion for a receiver whose highest
// TTL is rttl and a sender whose highest TTL is sttl (0: unknown). It
// counts only at a capture beside the sender (the sender's packets carry
// their initial TTL), where a receiver 0 hops away is on the sender's own
// link: that is a PEP on that link, or an ordinary on-link server, which
// hops cannot tell apart. It supports a PEP there only when the on-link
// acknowledger answers more than Ratio × slower than the sender
// (towardR, towardS) and stalls its window (stall: zero-window-stall
// supports): it accepts data at link speed and cannot pass it on. pending
// reports that all but the stall hold. At any other vantage toward S is a
// network RTT; a 0-hop receiver answering Ratio × slower than that delays
// its ACKs, which a PEP (acknowledging at once) does not, so it does not
// count.
func receiverHops(rttl, sttl uint8, towardR, towardS time.Duration, stall bool, w words) (it Item, pending bool) {
	hops := Hops(rttl)
	it = Item{
		Name: "receiver-hops", Unit: "hops", Value: float64(hops),
		Observed: w.f("receiver's max TTL %d = %d hops from initial %d; toward receiver %s, toward sender %s", rttl, hops, hops+int(rttl), w.rtt(towardR), w.rtt(towardS)),
		Expected: w.f("≥ 1 hop; beside the sender: < %d× slower than the sender, or no stall", Ratio),
	}
	slower := towardS*Ratio < towardR
	switch {
	case hops != 0:
	case !slower:
		it.Observed += w.f("; answers < %d× slower than the sender", Ratio)
	case sttl == 0:
		it.Observed += "; sender's TTL unknown: vantage unknown"
	case Hops(sttl) != 0:
		it.Observed += w.f("; sender %d hops away: a 0-hop receiver slower than the sender delays its ACKs, a PEP would not", Hops(sttl))
	case !stall:
		pending = true
		it.Observed += "; beside the sender: on its link, as an on-link server is; counts only with a zero-window stall"
	default:
		it.Supports = true
		it.Observed += "; beside the sender: an on-link acknowledger that stalls (zero-window-stall)"
	}
	return it, pending
}
