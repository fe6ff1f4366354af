package pep

import (
	"fmt"
	"net/netip"
	"sync"
	"weak"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Links is what a capture's link layer shows of the hosts on its link,
// read in the analysis's one pass: which link address announced an IPv4
// address as its own (the capture's tcpanalysis.Report.LinkOwn, AddOwn),
// and which link address sent an IP address's TCP packets with a
// decremented TTL (the connections' tcpanalysis.DirStats.Links, AddConn).
// With one connection's own evidence (Source: the link address that sent
// its receiver's packets at 0 hops), it is the evidence of the
// link-address criterion (docs/metrics.md#pep): whether the host that
// acknowledges a direction's data from the sender's own link is the
// receiver itself or a box that answers for it. The zero value knows
// nothing; a Links is read-only once built and safe for concurrent use
// then.
type Links struct {
	// Dirs counts the connection directions added whose segments carried
	// a link-layer source address (capture.Segment.SA); 0 for a capture
	// without link addresses (raw IP, loopback, PPP), where nothing here
	// decides anything.
	Dirs int64
	// Full reports that the tables reached MaxLinkEntries: facts of
	// addresses met after that were not recorded (so they decide
	// nothing; what was recorded stays true).
	Full bool

	own  map[linkIP]string   // (link address, IPv4 address) → how it showed the address as its own
	ttl  map[linkIP]ttlRange // (link address, source IP) → TTLs of its TCP packets, for sources that sent some below an initial TTL
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

// ttlRange holds the lowest and highest TTL seen.
type ttlRange struct{ lo, hi uint8 }

// room reports whether one more entry fits, and marks l Full when not.
func (l *Links) room() bool {
	if l.keys >= MaxLinkEntries {
		l.Full = true
		return false
	}
	l.keys++
	return true
}

// AddOwn records the addresses a capture's frames announced as their own
// (tcpanalysis.Report.LinkOwn); cut is Report.LinkOwnCut.
func (l *Links) AddOwn(own []capture.LinkOwn, cut bool) {
	for _, o := range own {
		l.setOwn(linkIP{o.MAC, o.IP.Unmap()}, o.How)
	}
	l.Full = l.Full || cut
}

// AddConn records the link-layer sources of both directions of r
// (tcpanalysis.DirStats.Links) that sent some of its packets below an
// initial TTL, with the TTL range of what they sent from that direction's
// IP address: a router forwarding for that address, or a host forwarding
// ports to a container behind it. A source that sent at an initial TTL
// only (every source of a LAN capture) costs a comparison.
func (l *Links) AddConn(r *tcpanalysis.ConnResult) {
	for d := range 2 {
		st := &r.Dir[d]
		if st.NLinks == 0 {
			continue
		}
		l.Dirs++
		for i := range st.NLinks {
			ls := st.Links[i]
			if ls.MinTTL == ls.MaxTTL && Hops(ls.MaxTTL) == 0 {
				continue
			}
			k := linkIP{ls.Addr, r.Conn.Half[d].Addr.Addr().Unmap()}
			tr, ok := l.ttl[k]
			if !ok {
				if !l.room() {
					continue
				}
				if l.ttl == nil {
					l.ttl = map[linkIP]ttlRange{}
				}
				tr = ttlRange{ls.MinTTL, ls.MaxTTL}
			}
			tr.lo, tr.hi = min(tr.lo, ls.MinTTL), max(tr.hi, ls.MaxTTL)
			l.ttl[k] = tr
		}
	}
}

// LinksOf returns the Links of rep: its connections' link-layer sources
// and the addresses its frames announced. It is built once per report
// and kept (a small cache by report), so that the verdicts one command
// computes for one capture (a note, a table's rows, a legend) share it.
// nil for a nil rep.
func LinksOf(rep *tcpanalysis.Report) *Links {
	if rep == nil {
		return nil
	}
	k := weak.Make(rep)
	linkCache.Lock()
	defer linkCache.Unlock()
	if l, ok := linkCache.m[k]; ok {
		return l
	}
	l := &Links{}
	l.AddOwn(rep.LinkOwn, rep.LinkOwnCut)
	for _, r := range rep.Conns {
		l.AddConn(r)
	}
	if linkCache.m == nil || len(linkCache.m) >= linkCacheSize {
		linkCache.m = map[weak.Pointer[tcpanalysis.Report]]*Links{}
	}
	linkCache.m[k] = l
	return l
}

// linkCache keeps the Links of the reports read last (LinksOf), by weak
// pointer: it does not keep a report alive.
var linkCache struct {
	sync.Mutex
	m map[weak.Pointer[tcpanalysis.Report]]*Links
}

// linkCacheSize is how many reports' Links linkCache keeps.
const linkCacheSize = 8

// setOwn records that link address k.mac showed k.ip as its own, how
// (the first evidence is kept).
func (l *Links) setOwn(k linkIP, how string) {
	if _, ok := l.own[k]; !ok && l.room() {
		if l.own == nil {
			l.own = map[linkIP]string{}
		}
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

// Source is what one connection direction shows of the link-layer
// address that sent its packets at 0 hops (tcpanalysis.DirStats.Link0):
// the receiver's interface, or a box on the sender's link answering for
// it.
type Source struct {
	IP   netip.Addr // the direction's source IP address
	Addr [6]byte    // valid when N is 1
	N    uint8      // 0: no such packet had a link address; 2: several addresses sent them
	TTL  uint8      // their TTL
	// Dirs reports that the direction's packets carried link addresses at
	// all.
	Dirs bool
}

// SourceOf returns direction d's Source in r.
func SourceOf(r *tcpanalysis.ConnResult, d flows.Direction) Source {
	st := &r.Dir[d]
	return Source{IP: r.Conn.Half[d].Addr.Addr().Unmap(), Addr: st.Link0, N: st.Link0N, TTL: st.Link0TTL, Dirs: st.NLinks > 0}
}

// Facts returns what l says of the host that sent the receiver's packets
// described by src (the receiver's direction's Source; see LinkFacts).
func (l *Links) Facts(src Source) LinkFacts {
	switch {
	case l == nil:
		return LinkFacts{Why: "link layer not read"}
	case l.Dirs == 0 && !src.Dirs:
		return LinkFacts{Why: "the capture holds no link-layer addresses"}
	case src.N == 0:
		return LinkFacts{Why: "no frame of the receiver's with its initial TTL and a link address"}
	case src.N > 1:
		return LinkFacts{Why: "the receiver's packets came from several link addresses"}
	}
	f := LinkFacts{Known: true, Addr: src.Addr}
	f.Own = l.own[linkIP{f.Addr, src.IP}]
	if tr, ok := l.ttl[linkIP{f.Addr, src.IP}]; ok {
		hi := max(tr.hi, src.TTL)
		if Hops(hi) == 0 && tr.lo < hi && initialTTL(tr.lo) == initialTTL(hi) {
			f.Forwards, f.FwdTTL, f.HighTTL = true, tr.lo, hi
		}
	}
	return f
}

// macText writes a link address as six colon-separated hex bytes.
func macText(m [6]byte) string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}
