// Package pep looks for split-TCP performance-enhancing proxies (PEPs,
// RFC 3135) in TCP captures.
//
// With one capture, Detect and DetectWith weigh evidence that the host
// acknowledging a direction's data is not the real receiver: a connection
// RTT far below the known path RTT, data ACKs far faster than the handshake,
// an acknowledger on the sender's own link that stalls its window, long
// receive-window stalls at LAN RTTs, and TTLs that show two hosts speaking
// for the receiver; and the link layer's evidence that an on-link
// acknowledger is the receiver's own interface. Where the capture cannot
// tell a PEP from an ordinary receiver (a handshake slowed by its first
// packet), that criterion does not count, and where that leaves an
// acknowledger on the sender's link undecided the verdict says so
// (Possible): what the capture cannot show is never guessed either way.
// Every criterion compares RTTs with the factor Ratio; none uses fixed
// milliseconds. Evidence re-reads a capture for per-packet TTL and IP ID
// statistics and its link layer.
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
//     RTT toward R divided by Ratio, and R's per-packet TTLs (Evidence) show
//     two hosts (as ttl-synack-vs-ack): a PEP that lets the handshake through
//     to a farther host and then acknowledges data itself. When one host
//     answered the SYN and the data (same TTLs), the slow handshake is that
//     host's or its link's first-packet cost — ARP resolution, 802.11
//     association or block-ack setup, a MANET route discovery — as on the
//     ns-3 wifi-tcp station capture (handshake 8.4 ms, ACKs ≥ 0.52 ms, an ARP
//     exchange between SYN and SYN-ACK); without per-packet TTLs (Detect) the
//     two cannot be told apart and the criterion does not count. A
//     transparent PEP that also answers the SYN (as the project's testbed
//     does) passes this test.
//   - receiver-hops: vantage-aware. At a capture beside S (S's packets carry
//     their initial TTL), R's packets arriving with their initial TTL (0
//     hops) when toward R exceeds Ratio × toward S (toward S is S's own
//     turnaround there) say that R is on S's link — which a PEP there and
//     an ordinary on-link server both are. Then the criterion supports a
//     PEP when zero-window-stall supports (an on-link box that accepts data
//     at link speed and cannot pass it on), rules one out when
//     link-address shows R's own interface, and is otherwise Open: the
//     capture cannot tell, and the verdict is Possible. At any other
//     vantage toward S is a network RTT, and a 0-hop R slower than it
//     delays its ACKs, which a PEP does not: it never supports there.
//   - link-address (Links, LinksOf, Source; read in the analysis's one
//     pass, judged only for an acknowledger on S's link): the one
//     link-layer address that sent the connection's packets of R with
//     their initial TTL (capture.Segment.SA: Ethernet source; 802.11
//     source station by the DS bits; Linux cooked capture address) also
//     sent, anywhere in the capture, an ARP request, an IPv6 neighbor
//     solicitation or an IPv4 link-layer broadcast from R's address
//     (capture.Reader.LinkOwn): R's own
//     interface, no PEP (a proxy answers for a remote address at the TCP
//     level; it does not announce it). Nothing here supports a PEP: that
//     address also sending R's packets with a decremented TTL is a router
//     forwarding for R or a host forwarding ports to a container behind it
//     (corpus zeek-irc-dcc-send), so it stays Open.
//   - zero-window-stall: R closed its window (zero window) for longer than
//     Ratio × toward R: a receiver that acknowledges at LAN speed but cannot
//     hand the data on. A slow reading application does this too.
//   - ttl-synack-vs-ack (Evidence): R's packets come from two hosts: no later
//     packet carries the SYN-ACK's TTL, or the later packets come from two
//     initial TTLs (32, 64, 128, 255). One host whose route changes (ns-3
//     AODV, OLSR, DSDV runs) moves its TTL within one range that holds its
//     SYN-ACK's, so a varying TTL alone does not count; nor does a SYN-ACK
//     TTL no later packet has when the SYN-ACK's IPv4 ID counter goes on in
//     the later packets (step 1..IPIDStep: one host, its route changed).
//   - ipid-streams (Evidence): more than a quarter of R's consecutive
//     IP IDs do not step by 1..IPIDStep: packets from two senders (a PEP's
//     ACKs interleaved with the server's own packets).
//
// A Verdict is Likely when conn-rtt-vs-path supports a split, or when at
// least two criteria do. It is Possible — neither Likely nor ruled out,
// the third state — when receiver-hops is Open and no path RTT was given:
// the acknowledger is on S's link and the capture holds no stall and no
// link-layer evidence of whose interface it is (the testbed's PEP when it
// never closes its window; an on-link server alike). A path RTT decides
// that state both ways: a connection RTT below PathRTT/Ratio proves a PEP,
// one of at least that is the far end's. Without --path-rtt, a PEP on the
// sender's link that answers the SYN itself (the testbed's pep-on runs) is
// Likely through receiver-hops and zero-window-stall together when its
// buffer fills; an on-link server whose application stops reading looks
// the same to one capture (shared case zero_window_probe), and only
// PathRTT, link-layer evidence or a second capture tells them apart.
// DetectIn judges a verdict again with its report's link layer when it
// could change it (Verdict.LinkMatters); Recheck does it for listings,
// once the capture's pass has ended. RTT criteria compare medians: the
// estimate every analysis keeps (tcpanalysis.RTTAgg.MedianEstimate), so
// that every output judges on the same number, kept samples or not. The package
// draws nothing and prints nothing; Verdict.AckNote and PossibleNote are
// the sentences outputs print, Mark the "PEP" or "PEP?" beside a rate.
package pep
