package pep

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/tcpviz/tcpviz/capture"
)

// Links is what a capture's link layer shows of the hosts on its link
// (ScanLinks, Evidence): which link-layer address sent which IP address's
// TCP packets at which TTLs, and which link address announced an IPv4
// address as its own. It is the evidence of the link-address criterion
// (docs/metrics.md#pep): whether the host that acknowledges a direction's
// data from the sender's own link is the receiver itself or a box that
// answers for it. The zero value knows nothing; a Links is read-only once
// built and safe for concurrent use then.
type Links struct {
	// Frames counts the frames with a link-layer source address
	// (capture.ParseLinkFrame); 0 for a capture without link addresses
	// (raw IP, loopback, PPP), where nothing here decides anything.
	Frames int64
	// Full reports that the tables reached MaxLinkEntries: facts of
	// addresses met after that were not recorded (so they decide
	// nothing; what was recorded stays true).
	Full bool

	own  map[linkIP]string   // (link address, IPv4 address) → how it showed the address as its own
	ttl  map[linkIP]ttlRange // (link address, source IP) → TTLs of its TCP packets
	src  map[ipPair]linkSet  // (source, destination IP) of TCP packets at 0 hops → link sources
	keys int
}

// MaxLinkEntries bounds the entries of a Links' tables together: a capture
// of many hosts (a scan, a busy server's link) keeps the first ones, so
// its memory stays a few megabytes.
const MaxLinkEntries = 1 << 16

type linkIP struct {
	mac [6]byte
	ip  netip.Addr
}

type ipPair struct{ src, dst netip.Addr }

// ttlRange holds the lowest and highest TTL seen.
type ttlRange struct{ lo, hi uint8 }

// linkSet holds up to 4 distinct link addresses; more mark it many.
type linkSet struct {
	n    uint8
	a    [4][6]byte
	many bool
}

func (s *linkSet) add(m [6]byte) {
	for i := 0; i < int(s.n); i++ {
		if s.a[i] == m {
			return
		}
	}
	if s.n == uint8(len(s.a)) {
		s.many = true
		return
	}
	s.a[s.n] = m
	s.n++
}

// room reports whether one more entry fits, and marks l Full when not.
func (l *Links) room() bool {
	if l.keys >= MaxLinkEntries {
		l.Full = true
		return false
	}
	l.keys++
	return true
}

// add records one frame.
func (l *Links) add(f *capture.LinkFrame) {
	if !f.SrcOK {
		return
	}
	if l.own == nil {
		l.own, l.ttl = map[linkIP]string{}, map[linkIP]ttlRange{}
		l.src = map[ipPair]linkSet{}
	}
	l.Frames++
	switch {
	case f.ARP:
		// An ARP request names its sender's own address: a proxy-ARP
		// router answers (op 2) for others' addresses but asks (op 1)
		// from its own. Probes (sender 0.0.0.0) name none.
		if f.ARPOp == 1 && f.ARPHW == f.Src && f.ARPSender.IsValid() && !f.ARPSender.IsUnspecified() {
			l.setOwn(linkIP{f.Src, f.ARPSender}, "ARP request")
		}
	case !f.IP:
	case f.Broadcast && f.IPSrc.Is4() && !f.IPSrc.IsUnspecified():
		// A link-layer broadcast from an IPv4 address (routing hellos,
		// DHCP, NetBIOS): routers do not forward limited or directed
		// broadcasts (RFC 2644), so the host that sent it on this link
		// owns the address.
		l.setOwn(linkIP{f.Src, f.IPSrc}, "IPv4 broadcast")
	case f.Proto == 6:
		k := linkIP{f.Src, f.IPSrc}
		tr, ok := l.ttl[k]
		if !ok {
			if !l.room() {
				break
			}
			tr = ttlRange{f.TTL, f.TTL}
		}
		tr.lo, tr.hi = min(tr.lo, f.TTL), max(tr.hi, f.TTL)
		l.ttl[k] = tr
		p := ipPair{f.IPSrc, f.IPDst}
		if Hops(f.TTL) == 0 {
			if s, ok := l.src[p]; ok || l.room() {
				s.add(f.Src)
				l.src[p] = s
			}
		}
	}
}

// setOwn records that link address k.mac showed k.ip as its own, how
// (the first evidence is kept).
func (l *Links) setOwn(k linkIP, how string) {
	if _, ok := l.own[k]; !ok && l.room() {
		l.own[k] = how
	}
}

// LinkFacts is what Links says of the host that acknowledges one
// direction's data: the link address that sent the receiver's packets to
// the sender with their initial TTL, and whether that address showed the
// receiver's address as its own, or also sent the receiver's packets with
// a decremented TTL.
type LinkFacts struct {
	// Known reports that one link address (Addr) sent the receiver's TCP
	// packets to the sender at 0 hops; else Why says what is missing.
	Known bool
	Addr  [6]byte
	// Own names how Addr showed the receiver's IPv4 address as its own
	// ("ARP request", "IPv4 broadcast"); "" when it did not. It rules a
	// PEP out: a proxy answers for a remote address at the TCP level, it
	// does not announce it on the link.
	Own string
	// Forwards reports that Addr also sent TCP packets from the
	// receiver's address with a TTL below their initial one, from the
	// same initial TTL: a router forwarding for that address, or a host
	// that forwards some ports to a container or VM behind it under its
	// own address (NAT) — the shared corpus's zeek-irc-dcc-send shows
	// 10.0.0.22's own DCC connections at TTL 64 and its IRC server's at
	// 63, from one MAC. So it decides nothing. FwdTTL is the lowest such
	// TTL, HighTTL the highest.
	Forwards        bool
	FwdTTL, HighTTL uint8
	// Why says why Known is false.
	Why string
}

// Facts returns what l says of the host acknowledging the data that
// sender sends to receiver (see LinkFacts).
func (l *Links) Facts(receiver, sender netip.Addr) LinkFacts {
	switch {
	case l == nil:
		return LinkFacts{Why: "link layer not read"}
	case l.Frames == 0:
		return LinkFacts{Why: "the capture holds no link-layer addresses"}
	}
	receiver, sender = receiver.Unmap(), sender.Unmap()
	s, ok := l.src[ipPair{receiver, sender}]
	switch {
	case !ok || s.n == 0:
		return LinkFacts{Why: "no frame of the receiver's with its initial TTL and a link address"}
	case s.n > 1 || s.many:
		return LinkFacts{Why: "the receiver's packets came from several link addresses"}
	}
	f := LinkFacts{Known: true, Addr: s.a[0]}
	f.Own = l.own[linkIP{f.Addr, receiver}]
	if tr, ok := l.ttl[linkIP{f.Addr, receiver}]; ok && Hops(tr.hi) == 0 && tr.lo < tr.hi && initialTTL(tr.lo) == initialTTL(tr.hi) {
		f.Forwards, f.FwdTTL, f.HighTTL = true, tr.lo, tr.hi
	}
	return f
}

// macText writes a link address as six colon-separated hex bytes.
func macText(m [6]byte) string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// ScanLinks reads the capture at path once and returns its Links. Every
// frame counts, whatever a capture filter of the analysis selected: the
// evidence is about the hosts on the link, not the traffic measured.
// Errors: the capture cannot be opened or read (wrapped, naming path).
func ScanLinks(path string) (*Links, error) {
	r, err := capture.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pep link evidence: %w", err)
	}
	defer r.Close()
	l := &Links{}
	r.SetFrameHook(capture.LinkFrameHook(func(f *capture.LinkFrame) bool {
		l.add(f)
		return false // nothing to decode: the hook saw all it needs
	}))
	var s capture.Segment
	for {
		err := r.Next(&s)
		if errors.Is(err, io.EOF) {
			return l, nil
		}
		if err != nil {
			return nil, fmt.Errorf("pep link evidence: %w", err)
		}
	}
}

// linkCache keeps the Links of the captures read last, so that the
// verdicts one command computes for one capture (a note, a table's rows, a
// legend: DetectFile) read it once.
var linkCache struct {
	sync.Mutex
	m map[linkKey]*Links
}

type linkKey struct {
	path  string
	size  int64
	mtime time.Time
}

// linkCacheSize is how many captures' Links linkCache keeps.
const linkCacheSize = 8

// LinksOf returns ScanLinks(path), from a small cache keyed by the file's
// path, size and modification time. Standard input ("-") and files that
// are not regular (FIFOs: read once) are not read: it returns nil, nil.
func LinksOf(path string) (*Links, error) {
	if !Rereadable(path) {
		return nil, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil
	}
	k := linkKey{path, fi.Size(), fi.ModTime()}
	linkCache.Lock()
	l, ok := linkCache.m[k]
	linkCache.Unlock()
	if ok {
		return l, nil
	}
	l, err = ScanLinks(path)
	if err != nil {
		return nil, err
	}
	linkCache.Lock()
	if linkCache.m == nil || len(linkCache.m) >= linkCacheSize {
		linkCache.m = map[linkKey]*Links{}
	}
	linkCache.m[k] = l
	linkCache.Unlock()
	return l, nil
}
