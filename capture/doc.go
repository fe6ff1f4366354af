// Package capture reads pcap and pcapng files (plain, gzip or zstd, or from
// standard input) and decodes every frame that carries TCP into a
// Segment: a plain value with the frame number, capture time, endpoints,
// sequence and acknowledgment numbers, flags, window, payload length and the
// TCP options tcpviz needs.
//
// One Reader reuses one buffer and allocates nothing per packet. Frames that
// carry no TCP are counted in Stats, not reported as errors. capture does not
// group segments into connections; that is package flows.
package capture
