package capture

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
)

// Node is what an 802.11 capture taken on a node's own radio (ns-3's
// radiotap pcaps, a monitor-mode capture on the node's own interface)
// shows of that node: the addresses its radio transmits from
// (docs/metrics.md#own-frames). Open learns it for a regular file whose
// frames carry radiotap headers (Reader.Node); other captures give the
// zero value, which knows nothing.
//
// The evidence is the radiotap antenna-signal field: a radio records it
// for every frame it received and for none it sent (ns-3, Linux monitor
// mode). The transmitter addresses (802.11 address 2) of the data and
// management frames without it are the node's own MACs. The node is known
// only when the capture holds both frames its radio sent and frames it
// received, from at most MaxOwnMACs own addresses: a capture with no
// received frame proves nothing about the signal field, and one whose
// "sent" frames come from many transmitters is a sniffer whose driver
// leaves the signal out, not one node.
type Node struct {
	// Known reports that the capture established its node's MACs.
	Known bool
	// MACs are the node's own 802.11 addresses, in order of first
	// transmission; valid iff Known.
	MACs [][6]byte
	// Sent and Received count the data and management frames of the scan
	// without and with an antenna signal; Scanned the records read.
	Sent, Received, Scanned int64
	// Why says what decided: the evidence when Known, else why not.
	Why string
}

// NodeScanFrames is the most records Open reads to learn a capture's
// Node when its first PrescanFrames records show no frame sent or none
// received by its radio.
const NodeScanFrames = 16 * PrescanFrames

// MaxOwnMACs is the most transmitter addresses a node's own frames may
// show (Node).
const MaxOwnMACs = 4

// Reception is how the capturing node took part in an 802.11 frame
// (Node.Reception; docs/metrics.md#own-frames).
type Reception uint8

// Receptions.
const (
	// ReceptionUnknown: not an 802.11 frame, or the node is not known.
	ReceptionUnknown Reception = iota
	// ReceptionSent: the node's radio transmitted the frame (no antenna
	// signal).
	ReceptionSent
	// ReceptionAddressed: the node's radio received the frame and its
	// receiver address (802.11 address 1) is one of the node's MACs, or a
	// group (broadcast, multicast) address.
	ReceptionAddressed
	// ReceptionOverheard: the node's radio decoded a frame addressed to
	// another node. It shows that the frame's transmitter sent it, not
	// that this node received it.
	ReceptionOverheard
)

// String returns the reception's name: unknown, sent, addressed,
// overheard.
func (r Reception) String() string {
	return [...]string{"unknown", "sent", "addressed", "overheard"}[r]
}

// Reception classifies segment s, read from the capture n was learnt
// from.
func (n *Node) Reception(s *Segment) Reception {
	if n == nil || !n.Known || !s.WiFi {
		return ReceptionUnknown
	}
	if !s.RadioSignal {
		return ReceptionSent
	}
	if s.RA[0]&1 != 0 || slices.Contains(n.MACs, s.RA) {
		return ReceptionAddressed
	}
	return ReceptionOverheard
}

// Owns reports whether mac is one of the node's own addresses.
func (n *Node) Owns(mac [6]byte) bool {
	return n != nil && n.Known && slices.Contains(n.MACs, mac)
}

// Node returns what the capture shows of the node it was taken on (see
// Node): learnt by Open from a scan of a regular file, before the first
// frame is read; the zero value for standard input, a stream given to
// NewReader, or a capture without radiotap frames.
func (r *Reader) Node() Node { return r.node }

// scanNode reads the records of the regular file at path (a reader of its
// own) and learns its node (Node): at least the first PrescanFrames
// records, and on until a frame sent and a frame received have both been
// seen, at most NodeScanFrames records. Only radiotap frames count; a
// capture with none in its first PrescanFrames records gives the zero
// Node, with Why set when it holds 802.11 frames of another link type.
func scanNode(path string) Node {
	f, err := os.Open(path)
	if err != nil {
		return Node{}
	}
	defer f.Close()
	r, err := NewReader(f, path)
	if err != nil {
		return Node{}
	}
	defer r.Close()
	if r.done || r.src == nil {
		return Node{}
	}
	var n Node
	radio, wifi := false, false // radiotap frames; 802.11 frames without radiotap
	for {
		if n.Scanned >= PrescanFrames && (!radio || n.Sent > 0 && n.Received > 0 || n.Scanned >= NodeScanFrames) {
			break
		}
		var data []byte
		lt := r.link
		if r.ng != nil {
			var p ngRecord
			if err := r.ngReadOne(&p); err != nil {
				break
			}
			data, lt = p.data, p.lt
		} else {
			var err error
			if data, _, err = r.src.ZeroCopyReadPacketData(); err != nil {
				break
			}
		}
		n.Scanned++
		if lt == LinkIEEE80211 || lt == LinkPrism || lt == LinkAVS {
			wifi = true
		}
		if lt != LinkRadiotap {
			continue
		}
		radio = true
		ta, sent, ok := radiotapTA(data)
		switch {
		case !ok:
		case sent:
			n.Sent++
			if !slices.Contains(n.MACs, ta) {
				n.MACs = append(n.MACs, ta)
			}
		default:
			n.Received++
		}
	}
	switch {
	case !radio && wifi:
		return Node{Scanned: n.Scanned, Why: "802.11 without radiotap headers: the capture cannot tell the frames its radio sent from those it received"}
	case !radio:
		return Node{}
	case n.Sent == 0:
		n.Why = fmt.Sprintf("no frame of the first %d records was sent by the capturing radio (every one carries an antenna signal): a sniffer's capture, or a node that never transmitted", n.Scanned)
	case n.Received == 0:
		n.Why = fmt.Sprintf("no frame of the %d records carries an antenna signal, so the signal field does not tell sent frames from received ones", n.Scanned)
	case len(n.MACs) > MaxOwnMACs:
		n.Why = fmt.Sprintf("frames without an antenna signal come from %d transmitter addresses (more than %d): not one node's radio", len(n.MACs), MaxOwnMACs)
	default:
		n.Known = true
		n.Why = fmt.Sprintf("%d of %d frames scanned were sent by the capturing radio (radiotap without antenna signal), all from %s", n.Sent, n.Sent+n.Received, macList(n.MACs))
		return n
	}
	n.MACs = nil
	return n
}

// radiotapTA returns the transmitter address of a radiotap frame that has
// one (an 802.11 data or management frame), and whether the capturing
// radio sent it: no antenna-signal field (radiotap present bit 5) in the
// first present word.
func radiotapTA(b []byte) (ta [6]byte, sent, ok bool) {
	if len(b) < 8 {
		return ta, false, false
	}
	n := int(binary.LittleEndian.Uint16(b[2:]))
	if n < 8 || n > len(b) {
		return ta, false, false
	}
	sent = binary.LittleEndian.Uint32(b[4:])&(1<<5) == 0
	w := b[n:]
	if len(w) < 16 {
		return ta, false, false
	}
	if typ := (w[0] >> 2) & 3; typ != 0 && typ != 2 { // control frames: ACK, RTS, CTS carry no address 2 worth trusting
		return ta, false, false
	}
	return [6]byte(w[10:16]), sent, true
}

// macList formats addresses as "00:00:00:00:00:0b, …".
func macList(m [][6]byte) string {
	s := ""
	for i, a := range m {
		if i > 0 {
			s += ", "
		}
		s += MAC(a)
	}
	return s
}

// MAC formats an 802.11 address as six colon-separated hex bytes.
func MAC(a [6]byte) string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5])
}
