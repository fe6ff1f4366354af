package capture

import (
	"net/netip"
	"time"

	"github.com/tcpviz/tcpviz/internal/seq"
)

// Timestamp is a capture time in nanoseconds since the Unix epoch, exactly as
// the capture file stores it (µs or ns resolution, pcapng if_tsresol and
// if_tsoffset applied).
type Timestamp int64

// Time returns t as a time.Time in UTC.
func (t Timestamp) Time() time.Time { return time.Unix(0, int64(t)).UTC() }

// Sub returns t − u.
func (t Timestamp) Sub(u Timestamp) time.Duration { return time.Duration(t - u) }

// Seconds returns t in seconds since the Unix epoch.
func (t Timestamp) Seconds() float64 { return float64(t) / 1e9 }

// Flags are the TCP header flags (RFC 9293 §3.1, RFC 3168 for ECE and CWR).
type Flags uint16

// TCP flag bits, as in the header's flags byte.
const (
	FIN Flags = 1 << iota
	SYN
	RST
	PSH
	ACK
	URG
	ECE
	CWR
)

// Has reports whether all bits of f2 are set in f.
func (f Flags) Has(f2 Flags) bool { return f&f2 == f2 }

// String returns the flags in tcpdump's letters, e.g. "S." for SYN-ACK,
// or "none"; bits above CWR are not named. It allocates nothing: the
// names of the 256 combinations are made once (a seq CSV names the flags
// of every segment).
func (f Flags) String() string { return flagNames[f&0xff] }

// flagNames are the names Flags.String returns, by the flags byte.
var flagNames = func() (n [256]string) {
	for i := range n {
		n[i] = Flags(i).name()
	}
	return n
}()

// name is Flags.String written out.
func (f Flags) name() string {
	var b []byte
	for _, x := range []struct {
		f Flags
		c byte
	}{{SYN, 'S'}, {FIN, 'F'}, {RST, 'R'}, {PSH, 'P'}, {URG, 'U'}, {ECE, 'E'}, {CWR, 'W'}, {ACK, '.'}} {
		if f.Has(x.f) {
			b = append(b, x.c)
		}
	}
	if len(b) == 0 {
		return "none"
	}
	return string(b)
}

// SACKBlock is one selective acknowledgment block (RFC 2018): the receiver
// holds the bytes [Left, Right).
type SACKBlock struct{ Left, Right seq.Num }

// Options are the TCP options tcpviz uses. Fields are valid only when the
// option was present; the "absent" value of each is documented.
type Options struct {
	MSS uint16 // maximum segment size in bytes (RFC 9293); 0 if absent
	// WScale is the window-scale shift count as sent (RFC 7323 §2.2, not
	// clamped), or -1 if absent.
	WScale   int16
	SACKPerm bool // SACK-permitted option present (RFC 2018)
	// TS reports whether the timestamps option (RFC 7323 §3) was present;
	// TSval and TSecr are valid iff TS.
	TS           bool
	TSval, TSecr uint32
	NSACK        uint8        // number of valid entries in SACK (at most 4)
	SACK         [4]SACKBlock // SACK blocks in the order sent
	// Truncated reports that the snap length cut the options short: options
	// after the cut are unknown, not absent.
	Truncated bool
	// Malformed reports an option with an impossible length; parsing stopped
	// there.
	Malformed bool
}

// Segment is one TCP segment as seen in the capture. It holds no references
// into the read buffer, so it is safe to keep.
type Segment struct {
	// The fields are laid out for the analysis's hot path: those it reads
	// for every segment come first, in the first two cache lines with the
	// endpoints; the rest follow.

	Time  Timestamp // capture time
	Frame int64     // 1-based frame number in the file, as Wireshark numbers them
	// Offset is the file offset in bytes of the frame's pcap record
	// header in a plain pcap file read in place (Next, ReadFrames,
	// ReadIndexed); 0 when not known (pcapng, compressed files, streams).
	Offset int64

	Seq, Ack seq.Num
	Flags    Flags
	Window   uint16 // raw window field, before any scaling
	Checksum uint16 // TCP checksum field as captured (identifies copies of one packet)
	IPID     uint16 // IPv4 identification; 0 for IPv6

	// ICMP is not ICMPNone when the frame is an ICMP error quoting a TCP
	// segment rather than a TCP segment: then Src, Dst and Seq are the
	// quoted segment's (its direction), ICMPFrom is the address that sent
	// the error (a router, or the destination), ICMPMTU the next-hop MTU in
	// bytes for ICMPFragNeeded (0 if not given), and every other TCP field
	// is zero. Reader.Next returns such frames too; flows and tcpanalysis
	// turn them into events of the quoted connection.
	ICMP ICMPKind
	TTL  uint8 // IPv4 TTL or IPv6 hop limit
	IPv6 bool
	// DF is the IPv4 don't-fragment bit. A DF datagram is atomic: its
	// identification need not be unique (RFC 6864 §4), so only an ID
	// stream seen to change tells such packets apart.
	DF bool
	// WiFi reports that the frame came from an IEEE 802.11 link; Retry is
	// the 802.11 Retry bit, TA the transmitter address (802.11 address 2)
	// and RA the receiver address (address 1). Valid iff WiFi.
	WiFi  bool
	Retry bool
	// FineTime reports that the capture is known to stamp time finer than
	// 10 µs: some frame's timestamp is off a multiple of 10 µs. For a file
	// opened by path the Reader decides it before the first frame from a
	// pre-scan of the first PrescanFrames records, so it is the same for
	// every frame; for a stream (standard input, NewReader) it turns true
	// at the first such frame read (docs/metrics.md#folded-duplicates).
	FineTime bool
	// RadioSignal reports that a radiotap header carried an antenna signal
	// (dBm) field: the capturing radio received the frame rather than sent
	// it (as ns-3 and Linux monitor mode record it).
	RadioSignal bool

	// SeqCtl is the 802.11 Sequence Control field as sent: the 12-bit
	// sequence number in bits 4–15, the fragment number in bits 0–3
	// (IEEE 802.11-2020 §9.2.4.4). A frame with Retry set repeats the
	// earlier frame with the same TA and SeqCtl, and no other. Valid iff
	// WiFi.
	SeqCtl uint16
	// SA is the frame's link-layer source address: the Ethernet source, an
	// 802.11 data frame's source station by its To/From DS bits (as
	// ParseLinkFrame), a Linux cooked capture's 6-byte source; all zero
	// when the link has none (raw IP, loopback, PPP) or for an address of
	// another length. Tunnels are not entered: it is the capture link's.
	// It is the link-address evidence of package pep (docs/metrics.md#pep).
	SA [6]byte

	// PayloadLen is the TCP payload length in bytes, computed from the IP
	// length fields, not from the captured bytes, so it is right for
	// snaplen-truncated frames.
	PayloadLen int
	// CapLen and WireLen are the frame's captured and original lengths in bytes.
	CapLen, WireLen int

	Iface int // pcapng interface index; 0 for pcap

	Src, Dst netip.AddrPort
	Opts     Options

	IPLen  int // IP packet length in bytes from the IP header (or from the wire length when the header says 0, as TSO/GSO captures do)
	HdrLen int // TCP header length in bytes (data offset × 4)

	TA, RA [6]byte

	ICMPMTU  uint32 // before ICMPFrom: it fills TA and RA's padding (a Segment of 264 bytes, TestSegmentFitsPrefetch)
	ICMPFrom netip.Addr
}

// SeqLen returns the sequence space the segment occupies in bytes: payload
// plus one each for SYN and FIN (RFC 9293 §3.4).
func (s *Segment) SeqLen() seq.Size {
	n := seq.Size(s.PayloadLen)
	if s.Flags.Has(SYN) {
		n++
	}
	if s.Flags.Has(FIN) {
		n++
	}
	return n
}

// End returns the sequence number just after the segment (Seq + SeqLen).
func (s *Segment) End() seq.Num { return s.Seq.Add(s.SeqLen()) }
