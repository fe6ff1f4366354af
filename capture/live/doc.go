// Package live captures frames from a network interface for tcpviz and
// compiles capture filters (pcap-filter(7) expressions) for live captures and
// files alike.
//
// Open returns a Capture whose Reader is a capture.Reader like a file's. Two
// backends exist, chosen at build time: AF_PACKET through gopacket/afpacket
// with filters compiled in pure Go by packetcap/go-pcap (the default: the
// binary stays static and cgo-free), and libpcap through gopacket/pcap with
// libpcap's own filter compiler (build tag pcap). Backend names the one in
// the binary. The package does no TCP analysis.
package live
