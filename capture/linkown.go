package capture

import (
	"bytes"
	"net/netip"
	"slices"
)

// LinkOwn is one link-layer address seen announcing an IPv4 address as its
// own, in a frame that is not TCP: an ARP request whose sender is that
// address (a proxy-ARP router answers for others' addresses, op 2, but
// asks from its own, op 1), an IPv6 neighbor solicitation from it (the
// same, RFC 4861), or a link-layer broadcast IPv4 packet from it
// (routing hellos, DHCP, NetBIOS: routers do not forward limited or
// directed broadcasts, RFC 2644, so the host that sent it on this link owns
// the address). It is package pep's evidence that the host acknowledging
// a connection's data from the sender's link is the receiver's own
// interface, not a split-TCP PEP answering for it (docs/metrics.md#pep).
type LinkOwn struct {
	MAC [6]byte
	IP  netip.Addr
	// How is "ARP request", "IPv6 neighbor solicitation" or "IPv4
	// broadcast": the first evidence seen.
	How string
}

// MaxLinkOwn bounds the LinkOwn entries a Reader keeps: a capture of a
// large broadcast domain keeps the first ones (Reader.LinkOwn reports
// whether it was cut), so its memory stays below a megabyte.
const MaxLinkOwn = 4096

// ownSet collects LinkOwn entries, each (MAC, IP) once, up to MaxLinkOwn.
type ownSet struct {
	m    map[ownKey]string
	full bool
	lf   LinkFrame // scratch of frame
}

type ownKey struct {
	mac [6]byte
	ip  netip.Addr
}

// frame records what a frame that is not TCP (decode's verdict vNonIP or
// vNonTCP) of link type link shows (ParseLinkFrame), if anything. Such
// frames are rare in a TCP capture; TCP frames never come here.
func (o *ownSet) frame(link int, data []byte) {
	if !ParseLinkFrame(link, data, &o.lf) {
		return
	}
	if mac, ip, how := ownOf(&o.lf); how != "" {
		o.add(mac, ip, how)
	}
}

// ownOf returns the address lf's sender announces as its own and how, or
// how "" when it announces none.
func ownOf(f *LinkFrame) (mac [6]byte, ip netip.Addr, how string) {
	switch {
	case !f.SrcOK:
	case f.ARP:
		// Probes (sender 0.0.0.0) name no address.
		if f.ARPOp == 1 && f.ARPHW == f.Src && f.ARPSender.IsValid() && !f.ARPSender.IsUnspecified() {
			return f.Src, f.ARPSender, "ARP request"
		}
	case f.IP && f.Broadcast && f.IPSrc.Is4() && !f.IPSrc.IsUnspecified():
		return f.Src, f.IPSrc, "IPv4 broadcast"
	case f.IP && f.ICMPv6Type == 135 && f.IPSrc.Is6() && !f.IPSrc.IsUnspecified() && f.TTL == 255:
		// A neighbor solicitation from a host's own address (hop limit
		// 255: never forwarded, RFC 4861 §7.1.1; the unspecified source
		// of duplicate address detection names none). A proxy answers
		// for others with advertisements (type 136), which do not count.
		return f.Src, f.IPSrc, "IPv6 neighbor solicitation"
	}
	return mac, ip, ""
}

func (o *ownSet) add(mac [6]byte, ip netip.Addr, how string) {
	k := ownKey{mac, ip}
	if _, ok := o.m[k]; ok {
		return
	}
	if len(o.m) >= MaxLinkOwn {
		o.full = true
		return
	}
	if o.m == nil {
		o.m = map[ownKey]string{}
	}
	o.m[k] = how
}

// list returns o's entries sorted by MAC, then IP.
func (o *ownSet) list() []LinkOwn {
	out := make([]LinkOwn, 0, len(o.m))
	for k, how := range o.m {
		out = append(out, LinkOwn{MAC: k.mac, IP: k.ip, How: how})
	}
	slices.SortFunc(out, func(a, b LinkOwn) int {
		if c := bytes.Compare(a.MAC[:], b.MAC[:]); c != 0 {
			return c
		}
		return a.IP.Compare(b.IP)
	})
	return out
}

// LinkOwn returns, sorted by MAC and IP, the link-layer addresses the
// frames read so far showed announcing an IPv4 address as their own (ARP
// requests, IPv4 link-layer broadcasts; see LinkOwn), and whether
// MaxLinkOwn cut the list. Every frame of the capture counts, whatever
// connection filter (OnlyEndpoints) or capture filter (a FrameHook that
// drops frames, --filter) the reading applies: it is evidence about the
// hosts on the link, not about the traffic measured.
func (r *Reader) LinkOwn() (own []LinkOwn, cut bool) {
	return r.own.list(), r.own.full
}
