// Package pcaptest builds synthetic packet captures for tests and benchmarks.
//
// It writes classic pcap (µs and ns magic, either byte order) and pcapng
// (several interfaces, if_tsresol, if_tsoffset) byte for byte with
// encoding/binary, builds IPv4/IPv6 TCP segments with correct checksums,
// wraps them in the link layers tcpviz reads (Ethernet with VLAN/QinQ/MPLS,
// Linux SLL and SLL2, Null, bare PPP, raw IP, 802.11 plain, radiotap and
// Prism), and scripts hand-checkable TCP dialogues with Conn. WriteBulk and
// WriteShort stream large benchmark captures.
//
// It is test-only support: no production package may import it, and it
// decodes nothing. Builder misuse (an out-of-range interface id, options
// that do not fit in 40 bytes) panics, since the caller is a test.
package pcaptest
