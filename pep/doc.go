// Package pep looks for split-TCP performance-enhancing proxies (PEPs,
// RFC 3135) in TCP captures.
//
// With one capture, Detect and DetectWith weigh evidence that the host
// acknowledging a direction's data is not the real receiver: a connection
// RTT far below the known path RTT, data ACKs far faster than the handshake,
// a zero-hop IP TTL on the ACKs while they come back more slowly than the
// sender's own packets, long receive-window stalls at LAN RTTs, and a TTL
// that changes between SYN-ACK and ACKs. Every criterion compares RTTs with
// the factor Ratio; none uses fixed milliseconds. Evidence re-reads a
// capture for per-packet TTL and IP ID statistics.
//
// With two captures on one clock, one on each side of the PEP, MatchSplit
// pairs the two halves of each split connection and AnalyzeSplit measures
// each half's RTT, the bytes held inside the PEP over time and the
// end-to-end goodput over the receiving application's interval
// (docs/metrics.md#pep). Verdict.AckNote is the sentence outputs print when
// a PEP, not the receiver, acknowledged the data.
//
// Criteria (data direction d; S sends d's data, R acknowledges it; "toward
// R" is the RTT from the capture point to R and back, "toward S" likewise):
//
//   - conn-rtt-vs-path (needs Options.PathRTT): toward R + toward S, the RTT
//     of this TCP connection, is below PathRTT/Ratio. Proof of a split at a
//     capture on the PEP's near side; at the far side's capture the
//     remaining half is most of the path, so it does not fire there.
//   - ack-rtt-vs-handshake: the smallest ACK RTT of d is below the handshake
//     RTT toward R divided by Ratio: a PEP that lets the handshake through
//     end to end and then acknowledges data itself. A transparent PEP that
//     also answers the SYN (as the project's testbed does) passes this test.
//   - receiver-hops: R's packets arrive with their initial TTL (0 hops) while
//     toward R exceeds Ratio × toward S: the ACKs come from the first box on
//     the path, yet that box is slower to answer than the sender. A server
//     on the capture point's own link and no router has 0 hops too but a
//     short toward-R RTT.
//   - zero-window-stall: R closed its window (zero window) for longer than
//     Ratio × toward R: a receiver that acknowledges at LAN speed but cannot
//     hand the data on. A slow reading application does this too.
//   - ttl-synack-vs-ack (Evidence): R's SYN-ACK and its later packets
//     carry different TTLs: two different hosts spoke for R.
//   - ipid-streams (Evidence): more than a quarter of R's consecutive
//     IP IDs do not step by 1..IPIDStep: packets from two senders (a PEP's
//     ACKs interleaved with the server's own packets).
//
// A Verdict is Likely when conn-rtt-vs-path supports a split, or when at
// least two criteria do. The package draws nothing and prints nothing.
package pep
