package campaign

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/textcol"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// nodeID is what a per-node 802.11 capture (ns-3's radiotap pcaps, a
// monitor-mode capture on the node's own interface) tells about the node
// it was taken on, from every frame it holds — routing traffic included
// (docs/metrics.md#vantage):
//
//   - the radio's own transmissions are the frames whose radiotap header
//     carries no antenna signal (a received frame always has one);
//   - an IP address is the node's own when the highest TTL (hop limit) it
//     transmitted with that source address is above the highest it
//     received with it: a packet the node originates leaves with its
//     initial TTL, and every copy it hears back (a neighbour forwarding
//     it) has been decremented; a packet it forwards arrived with a TTL
//     one higher than the one it leaves with;
//   - the node's MACs are the transmitter addresses of its own frames; a
//     node that transmitted frames of a TCP connection whose endpoints are
//     not its own, or received frames of it addressed to its own MAC, is a
//     relay of that connection.
//
// The zero value knows nothing; a capture that is not radiotap 802.11, or
// holds no transmission or no reception of its radio, gives no identity
// (known reports false) and the TCP-level evidence decides (vantage).
type nodeID struct {
	tx, rx int                     // IP frames the radio sent / received
	ttl    map[netip.Addr]*ttlPair // per IP source address
	sent   map[flows.Key]struct{}  // TCP connections the radio transmitted frames of
	macs   map[[6]byte]struct{}    // transmitter addresses of the radio's own frames
	rxTo   map[flows.Key][][6]byte // per TCP connection, the receiver addresses of the frames it received
	last   frameFact               // the previous frame's facts
}

// ttlPair holds the highest TTL a node transmitted and received with one
// IP source address (0: never).
type ttlPair struct{ tx, rx uint8 }

// maxOwnMACs is the most transmitter addresses a node's own frames may
// show: more means the capture's "own" frames are not one node's (a
// sniffer whose driver leaves the signal out of some received frames).
const maxOwnMACs = 4

// known reports whether the capture showed both its radio's own
// transmissions, from at most maxOwnMACs addresses, and its receptions,
// so that ownership means something.
func (n *nodeID) known() bool {
	return n != nil && n.tx > 0 && n.rx > 0 && len(n.macs) <= maxOwnMACs
}

// owns reports whether a is one of the node's own IP addresses.
func (n *nodeID) owns(a netip.Addr) bool {
	if !n.known() {
		return false
	}
	p := n.ttl[a.Unmap()]
	return p != nil && p.tx > p.rx
}

// ownAddrs returns the node's own IP addresses.
func (n *nodeID) ownAddrs() []netip.Addr {
	if !n.known() {
		return nil
	}
	var out []netip.Addr
	for a, p := range n.ttl {
		if p.tx > p.rx {
			out = append(out, a)
		}
	}
	return out
}

// onPath reports whether the node's radio took part in connection c: it
// transmitted frames of it, or received frames of it addressed to its own
// MAC (a next hop that dropped them is on the path too).
func (n *nodeID) onPath(c *flows.Conn) bool {
	if n == nil {
		return false
	}
	k := flows.KeyOf(c.Half[0].Addr, c.Half[1].Addr)
	if _, ok := n.sent[k]; ok {
		return true
	}
	for _, ra := range n.rxTo[k] {
		if _, ok := n.macs[ra]; ok {
			return true
		}
	}
	return false
}

// frameHook returns a frame hook of type H (capture.FrameHook; pass a nil
// one) that learns the node's identity from each radiotap frame and keeps
// every frame. H's capture-info parameter type is inferred, so campaign
// does not import gopacket (dag_test.go).
func frameHook[H ~func(int, []byte, capture.Timestamp, CI) bool, CI any](_ H, n *nodeID) H {
	return func(link int, data []byte, _ capture.Timestamp, _ CI) bool {
		if link == capture.LinkRadiotap {
			n.frame(data)
		}
		return true
	}
}

// frame reads one radiotap 802.11 frame: whether the radio sent it, and
// its IP source, TTL and (TCP) ports. Anything it cannot read is ignored.
func (n *nodeID) frame(b []byte) {
	if len(b) < 8 {
		return
	}
	rl := int(binary.LittleEndian.Uint16(b[2:]))
	if rl < 8 || rl > len(b) {
		return
	}
	own := binary.LittleEndian.Uint32(b[4:])&(1<<5) == 0 // no antenna signal: sent by this radio
	b = b[rl:]
	if len(b) < 24 {
		return
	}
	fc0, fc1 := b[0], b[1]
	ra, ta := [6]byte(b[4:10]), [6]byte(b[10:16])
	if (fc0>>2)&3 != 2 || (fc0>>4)&4 != 0 || fc1&0x40 != 0 { // data with a body, not protected
		return
	}
	h := 24
	if fc1&0x03 == 0x03 {
		h += 6
	}
	if fc0>>4&8 != 0 { // QoS data
		if len(b) < h+2 || b[h]&0x80 != 0 { // A-MSDU: not read
			return
		}
		h += 2
		if fc1&0x80 != 0 {
			h += 4
		}
	}
	if len(b) < h+8 || b[h] != 0xaa || b[h+1] != 0xaa || b[h+2] != 0x03 {
		return
	}
	et := binary.BigEndian.Uint16(b[h+6:])
	ip := b[h+8:]
	var src, dst netip.Addr
	var ttl, proto uint8
	var l4 []byte
	switch {
	case et == 0x0800 && len(ip) >= 20 && ip[0]>>4 == 4:
		ihl := int(ip[0]&0x0f) * 4
		src, dst = netip.AddrFrom4([4]byte(ip[12:16])), netip.AddrFrom4([4]byte(ip[16:20]))
		ttl, proto = ip[8], ip[9]
		if ihl >= 20 && len(ip) >= ihl && binary.BigEndian.Uint16(ip[6:])&0x1fff == 0 {
			l4 = ip[ihl:]
		}
	case et == 0x86dd && len(ip) >= 40 && ip[0]>>4 == 6:
		src, dst = netip.AddrFrom16([16]byte(ip[8:24])), netip.AddrFrom16([16]byte(ip[24:40]))
		ttl, proto = ip[7], ip[6]
		l4 = ip[40:]
	default:
		return
	}
	if n.ttl == nil {
		n.ttl, n.sent, n.macs, n.rxTo = map[netip.Addr]*ttlPair{}, map[flows.Key]struct{}{}, map[[6]byte]struct{}{}, map[flows.Key][][6]byte{}
	}
	var key flows.Key
	tcp := proto == 6 && len(l4) >= 4
	if tcp {
		key = flows.KeyOf(netip.AddrPortFrom(src, binary.BigEndian.Uint16(l4)), netip.AddrPortFrom(dst, binary.BigEndian.Uint16(l4[2:])))
	}
	mac := ra
	if own {
		n.tx++
		mac = ta
	} else {
		n.rx++
	}
	f := frameFact{src, key, tcp, own, mac, ttl}
	if f == n.last {
		return // a bulk transfer repeats the same facts frame after frame
	}
	n.last = f
	p := n.ttl[src]
	if p == nil {
		p = &ttlPair{}
		n.ttl[src] = p
	}
	if own {
		p.tx = max(p.tx, ttl)
		n.macs[ta] = struct{}{}
		if tcp {
			n.sent[key] = struct{}{}
		}
		return
	}
	p.rx = max(p.rx, ttl)
	if tcp && !slices.Contains(n.rxTo[key], ra) {
		n.rxTo[key] = append(n.rxTo[key], ra)
	}
}

// frameFact is what nodeID.frame records of one frame; a frame with the
// same facts as the one before it changes nothing.
type frameFact struct {
	src      netip.Addr
	key      flows.Key
	tcp, own bool
	mac      [6]byte // the transmitter (own) or receiver address
	ttl      uint8
}

// vantageAt decides the vantage of capture node n for data direction d of
// r (docs/metrics.md#vantage). When the capture tells its node's identity,
// the capture is the receiver's if the node owns the receiver's address,
// the sender's if it owns the sender's, a relay's if its radio transmitted
// frames of the connection or received frames of it addressed to its own
// MAC, else it only overheard the connection. Without
// an identity the TCP-level evidence decides (vantage).
func vantageAt(n *nodeID, r *tcpanalysis.ConnResult, d flows.Direction) Vantage {
	if !n.known() {
		return vantage(r, d)
	}
	snd, rcv := r.Conn.Half[d].Addr.Addr(), r.Conn.Half[d.Reverse()].Addr.Addr()
	ownS, ownR := n.owns(snd), n.owns(rcv)
	switch {
	case ownR && !ownS:
		return AtReceiver
	case ownS && !ownR:
		return AtSender
	case ownS && ownR: // a node talking to itself over the air: not a node's view
		return vantage(r, d)
	case n.onPath(r.Conn):
		return Relay
	}
	return Overheard
}

// analyzeWithID analyses the capture at path as tcpanalysis.AnalyzeFile
// does, learning the capturing node's identity into id on the way.
func analyzeWithID(path string, id *nodeID, inline bool) (*tcpanalysis.Report, error) {
	r, err := capture.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.SetFrameHook(frameHook(capture.FrameHook(nil), id))
	return tcpanalysis.Analyze(r, tcpanalysis.Options{Flows: flows.Options{WScale: -1}, RTTQuantiles: true, Inline: inline})
}

// dataDir is the data direction of r under dir. For query.Auto it is
// query.DataDirection, except for a connection that carried no payload
// either way: then it is the SYN sender's direction when the handshake
// was captured (flows puts the SYN sender on side a), else a guess (tie
// true) that dedup aligns with the other captures of the connection.
func dataDir(r *tcpanalysis.ConnResult, dir query.Dir) (d flows.Direction, tie bool) {
	d = dir.Of(r)
	if dir != query.Auto {
		return d, false
	}
	a, b := &r.Dir[flows.AtoB], &r.Dir[flows.BtoA]
	if a.DeliveredBytes != 0 || b.DeliveredBytes != 0 || a.Bytes != b.Bytes {
		return d, false
	}
	c := r.Conn
	if c.Half[flows.AtoB].SynSeen || c.Half[flows.BtoA].SynSeen {
		return flows.AtoB, false
	}
	return d, true
}

// alignTies turns the rows whose direction was a guess (dirGuess: no
// payload either way, no handshake in their capture) to the direction the
// other captures of the same endpoints in the run give — a row with data,
// else one whose capture held the handshake — so that one connection is
// one flow, not one per direction. Such a row carries 0 goodput bytes
// either way; turning it swaps its endpoints and its sender/receiver
// vantage.
func alignTies(rows []FlowRow) {
	type ukey struct{ run, lo, hi string }
	end := func(a string, p uint16) string { return a + "|" + strconv.Itoa(int(p)) }
	keyOf := func(r *FlowRow) (ukey, string) {
		s, d := end(r.Src, r.SPort), end(r.Dst, r.DPort)
		if d < s {
			return ukey{r.RunKey, d, s}, s
		}
		return ukey{r.RunKey, s, d}, s
	}
	type choice struct {
		src   string
		known bool
		bytes int64
	}
	fwd := map[ukey]choice{}
	for i := range rows {
		r := &rows[i]
		if r.Vantage == Nowhere {
			continue
		}
		k, src := keyOf(r)
		c, ok := fwd[k]
		if !ok || (!c.known && !r.dirGuess) || (c.known && !r.dirGuess && r.TotalBytes > c.bytes) {
			fwd[k] = choice{src, !r.dirGuess, r.TotalBytes}
		}
	}
	for i := range rows {
		r := &rows[i]
		if !r.dirGuess {
			continue
		}
		if k, src := keyOf(r); fwd[k].src != src {
			r.turn()
		}
	}
}

// turn swaps the direction of a row whose direction was a guess
// (dirGuess): its endpoints, ISN, receiving application's span and
// sender/receiver vantage. Its bytes are 0 either way.
func (r *FlowRow) turn() {
	r.Src, r.Dst, r.SPort, r.DPort = r.Dst, r.Src, r.DPort, r.SPort
	r.isn, r.isnKnown, r.peerISN, r.peerISNKnown = r.peerISN, r.peerISNKnown, r.isn, r.isnKnown
	r.app, r.appRev = r.appRev, r.app
	switch r.Vantage {
	case AtReceiver:
		r.Vantage = AtSender
	case AtSender:
		r.Vantage = AtReceiver
	}
}

// VantageWarningsPerRun is how many flows per run Result.VantageWarnings
// names; the rest are counted.
const VantageWarningsPerRun = 10

// sinkWarnings lists the rows of runs with node identities (an 802.11
// capture per node) that are not read at their receiver, naming the
// capture of the receiver's node when the run has one (files[i] has info
// infos[i] and run key runKeys[files[i]]). A row whose receiver's capture
// holds none of the flow and whose own capture saw nothing delivered is
// consistent (nothing reached the receiver): such rows are only counted,
// in notes.
func sinkWarnings(rows []FlowRow, files []string, infos []fileInfo, runKeys map[string]string) (warnings, notes []Warning) {
	owner := map[string]map[netip.Addr]string{} // run → address → capture of its node
	for i, f := range files {
		if !infos[i].identity {
			continue
		}
		k := runKeys[f]
		if owner[k] == nil {
			owner[k] = map[netip.Addr]string{}
		}
		for _, a := range infos[i].own {
			owner[k][a] = f
		}
	}
	perRun := map[string]int{}
	var runs []string
	n, quiet := 0, 0
	for _, r := range rows {
		own, ok := owner[r.RunKey]
		if !ok || r.Vantage == AtReceiver || r.Vantage == Nowhere || r.Vantage.Proxied() {
			continue
		}
		var why string
		dst, _ := netip.ParseAddr(r.Dst)
		switch sink, has := own[dst.Unmap()]; {
		case r.recvFile != "":
			why = fmt.Sprintf("the receiver's capture %s holds it but the reader warned about that capture, and %s saw more of the flow", filepath.Base(r.recvFile), filepath.Base(r.File))
		case has && r.TotalBytes == 0:
			quiet++
			continue
		case has:
			why = fmt.Sprintf("the capture of the receiver's node, %s, holds none of it", filepath.Base(sink))
		default:
			why = fmt.Sprintf("no capture of the run was taken on the receiver's node (none transmitted as %s)", r.Dst)
		}
		n++
		if perRun[r.RunKey] == 0 {
			runs = append(runs, r.RunKey)
		}
		perRun[r.RunKey]++
		if perRun[r.RunKey] > VantageWarningsPerRun {
			continue
		}
		warnings = append(warnings, Warn(Caution, WarnVantage, "run %s: flow %s:%d → %s:%d is read from %s (vantage %s), not at its receiver: %s",
			filepath.Base(r.RunKey), r.Src, r.SPort, r.Dst, r.DPort, filepath.Base(r.File), r.Vantage, why))
	}
	for _, k := range runs {
		if m := perRun[k] - VantageWarningsPerRun; m > 0 {
			warnings = append(warnings, Warn(Caution, WarnVantage, "run %s: %d more flows not read at their receiver (column vantage)", filepath.Base(k), m))
		}
	}
	if n > 0 {
		warnings = append(warnings, Warn(Caution, WarnVantage, "%d flows in %d runs of per-node captures are not read at their receiver's own capture (vantage sender, relay, overheard or other): their goodput bytes are the bytes acknowledged where they were read, not what the receiver's radio decoded (docs/metrics.md#vantage)", n, len(runs)))
	}
	if quiet > 0 {
		notes = append(notes, Warn(Note, WarnNoReceiver, "%s reached no receiver: their receiver's capture holds none of them and they are read, with 0 bytes, from another node's capture (column vantage; docs/metrics.md#vantage)", textcol.Count(quiet, "flow")))
	}
	return warnings, notes
}
