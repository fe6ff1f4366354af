// Package flows groups capture.Segments into bidirectional TCP connections.
//
// A Tracker keys connections by their 4-tuple, numbers them in order of
// first packet (like tshark's tcp.stream), splits a reused 4-tuple into a
// new connection, records handshake facts (ISNs, MSS, window scale, SACK,
// timestamps), unwraps 32-bit sequence numbers into 64-bit offsets relative
// to each side's ISN, and folds copies of one packet that a capture holds
// more than once (802.11 MAC retries, a multi-hop node overhearing the relay
// of its own packet, the same packet on two pcapng interfaces).
// flows computes no metrics; that is package tcpanalysis.
package flows
