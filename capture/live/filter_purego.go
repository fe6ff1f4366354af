//go:build !pcap

package live

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/bpf"
)

const pureGo = true

// FilterCompiler names the filter implementation in the binary, for --help.
const FilterCompiler = "pure Go (tcpviz), a subset of pcap-filter(7) run in user space:\n  [src|dst] host ADDR, [src|dst] net CIDR, [tcp|udp] [src|dst] port N, tcp, udp,\n  icmp, ip, ip6, arp, and/or/not (&&, ||, !), parentheses\n  (build with -tags pcap for libpcap's full language, run in the kernel)"

// The pure-Go build evaluates the expression on each frame instead of
// compiling BPF: the one pure-Go pcap-filter compiler found
// (packetcap/go-pcap) misread "ip6", "net X and not port Y" and
// parenthesised expressions when checked against tcpdump, so tcpviz parses
// the subset itself, with libpcap's semantics (pcap-filter(7)):
//   - and/or have equal precedence and group left to right; not binds tighter;
//   - host and net test IPv4 or IPv6 by the address's family, and IPv4 ones
//     also ARP/RARP sender and target addresses;
//   - port tests TCP and UDP (and SCTP) over IPv4 (first fragment only) and
//     IPv6 (next header only, as libpcap does);
//   - tcp/udp/icmp also match IPv6 packets whose only extension header is a
//     fragment header;
//   - a value after and/or with no keyword repeats the previous
//     qualifiers ("port 80 or 443");
//   - frames with a VLAN tag match only link-level tests, as in libpcap
//     without the vlan keyword.

func compileBPF(string, int, int) ([]bpf.RawInstruction, error) {
	return nil, errors.New("no BPF compiler in the pure-Go build")
}

// exprMatcher evaluates a parsed expression; it reuses one frame.
type exprMatcher struct {
	root *node
	f    frame
}

func newMatcher(expr string, link int) (matcher, error) {
	if !knownLink(link) {
		return nil, fmt.Errorf("the pure-Go filter handles Ethernet, Linux cooked (v1, v2), PPP, null/loopback and raw IP frames, not link type %d; build tcpviz with -tags pcap", link)
	}
	n, err := parseFilter(expr)
	if err != nil {
		return nil, err
	}
	return &exprMatcher{root: n}, nil
}

func knownLink(link int) bool {
	switch link {
	case linkEthernet, linkRaw, linkRawAlt1, linkRawAlt2, linkLinuxSLL, linkLinuxSLL2, linkNull, linkLoop, linkPPP:
		return true
	}
	return false
}

func (m *exprMatcher) match(link int, data []byte) bool {
	if !m.f.decode(link, data) {
		return false
	}
	return m.root.eval(&m.f)
}

// node is one element of a parsed expression.
type node struct {
	op   byte // '&', '|', '!' or 'p' (primitive)
	l, r *node
	p    prim
}

// Protocol qualifiers and primitive kinds.
const (
	protoAny = iota
	protoIP
	protoIP6
	protoARP
	protoTCP
	protoUDP
	protoICMP
)

const (
	kindProto = iota // just a protocol: "tcp"
	kindHost
	kindNet
	kindPort
)

const (
	dirAny = iota // src or dst
	dirSrc
	dirDst
	dirBoth // src and dst
)

type prim struct {
	proto, kind, dir int
	pfx              netip.Prefix // host (full length) or net
	port             uint16
}

type parser struct {
	toks []string
	i    int
	last *prim // qualifiers for a bare value after and/or
}

func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '(' || c == ')':
			toks = append(toks, string(c))
			i++
		case c == '!' && (i+1 >= len(s) || s[i+1] != '='):
			toks = append(toks, "not")
			i++
		case strings.HasPrefix(s[i:], "&&"):
			toks = append(toks, "and")
			i += 2
		case strings.HasPrefix(s[i:], "||"):
			toks = append(toks, "or")
			i += 2
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n()!&|", rune(s[j])) {
				j++
			}
			if j == i { // a lone & or |
				j++
			}
			toks = append(toks, strings.ToLower(s[i:j]))
			i = j
		}
	}
	return toks
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *parser) next() string { t := p.peek(); p.i++; return t }

// expr = unary { (and|or) unary }, left to right, equal precedence.
func (p *parser) expr() (*node, error) {
	n, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek() == "and" || p.peek() == "or" {
		op := byte('&')
		if p.next() == "or" {
			op = '|'
		}
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		n = &node{op: op, l: n, r: r}
	}
	return n, nil
}

func (p *parser) unary() (*node, error) {
	switch p.peek() {
	case "not":
		p.next()
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{op: '!', l: n}, nil
	case "(":
		p.next()
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.next() != ")" {
			return nil, errors.New("missing )")
		}
		return n, nil
	case "", ")", "and", "or":
		return nil, fmt.Errorf("expected a primitive, got %q", p.peek())
	}
	return p.primitive()
}

var protoWords = map[string]int{"ip": protoIP, "ip6": protoIP6, "arp": protoARP, "tcp": protoTCP, "udp": protoUDP, "icmp": protoICMP}

func (p *parser) primitive() (*node, error) {
	pr := prim{dir: dirAny}
	qualified := false
	if v, ok := protoWords[p.peek()]; ok {
		pr.proto = v
		p.next()
		qualified = true
	}
	switch p.peek() {
	case "src", "dst":
		pr.dir = dirSrc
		if p.next() == "dst" {
			pr.dir = dirDst
		}
		if w := p.peek(); w == "and" || w == "or" {
			if p.i+1 < len(p.toks) && (p.toks[p.i+1] == "src" || p.toks[p.i+1] == "dst") {
				if w == "and" {
					pr.dir = dirBoth
				} else {
					pr.dir = dirAny
				}
				p.i += 2
			}
		}
		qualified = true
	}
	kw := p.peek()
	switch kw {
	case "host", "net", "port":
		p.next()
		pr.kind = map[string]int{"host": kindHost, "net": kindNet, "port": kindPort}[kw]
	default:
		if !qualified {
			// A bare value repeats the previous qualifiers: "port 80 or 443".
			if p.last != nil && kw != "" && !isKeyword(kw) {
				pr = *p.last
				return p.value(pr)
			}
			return nil, fmt.Errorf("%q is not supported by the pure-Go filter (build with -tags pcap for libpcap's full language)", kw)
		}
		if pr.dir != dirAny {
			return nil, fmt.Errorf("%q: src/dst must be followed by host, net or port", kw)
		}
		if pr.proto == protoAny {
			return nil, fmt.Errorf("%q: unexpected", kw)
		}
		pr.kind = kindProto
		return &node{op: 'p', p: pr}, nil
	}
	if pr.kind == kindPort && pr.proto != protoAny && pr.proto != protoTCP && pr.proto != protoUDP {
		return nil, fmt.Errorf("port with %s: only tcp or udp ports", kw)
	}
	if pr.kind != kindPort && (pr.proto == protoTCP || pr.proto == protoUDP || pr.proto == protoICMP) {
		return nil, fmt.Errorf("%s %s: host and net take ip, ip6 or arp as qualifier", map[int]string{protoTCP: "tcp", protoUDP: "udp", protoICMP: "icmp"}[pr.proto], kw)
	}
	return p.value(pr)
}

func isKeyword(w string) bool {
	switch w {
	case "and", "or", "not", "(", ")", "src", "dst", "host", "net", "port":
		return true
	}
	_, ok := protoWords[w]
	return ok
}

func (p *parser) value(pr prim) (*node, error) {
	v := p.next()
	if v == "" || isKeyword(v) {
		return nil, fmt.Errorf("a value must follow host, net or port (got %q)", v)
	}
	switch pr.kind {
	case kindHost:
		a, err := netip.ParseAddr(v)
		if err != nil {
			return nil, fmt.Errorf("host %q: want an IPv4 or IPv6 address (names are not resolved)", v)
		}
		pr.pfx = netip.PrefixFrom(a, a.BitLen())
	case kindNet:
		pf, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, fmt.Errorf("net %q: want a CIDR network such as 10.0.0.0/8", v)
			}
			pf = netip.PrefixFrom(a, a.BitLen())
		}
		if pf.Masked() != pf {
			return nil, fmt.Errorf("net %s: non-network bits set (libpcap refuses this too)", v)
		}
		pr.pfx = pf
	case kindPort:
		n, err := strconv.ParseUint(v, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("port %q: want a number 0-65535 (service names are not resolved)", v)
		}
		pr.port = uint16(n)
	}
	if (pr.proto == protoIP || pr.proto == protoARP) && pr.pfx.IsValid() && !pr.pfx.Addr().Is4() {
		return nil, fmt.Errorf("%s: an IPv6 address with ip or arp", v)
	}
	if pr.proto == protoIP6 && pr.pfx.IsValid() && !pr.pfx.Addr().Is6() {
		return nil, fmt.Errorf("%s: an IPv4 address with ip6", v)
	}
	last := pr
	p.last = &last
	return &node{op: 'p', p: pr}, nil
}

// parseFilter parses expr into a tree.
func parseFilter(expr string) (*node, error) {
	p := &parser{toks: tokenize(expr)}
	if len(p.toks) == 0 {
		return nil, errors.New("empty expression")
	}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q", p.toks[p.i])
	}
	return n, nil
}

// frame holds the fields of one frame the primitives test.
type frame struct {
	etype uint16 // 0 if none (VLAN-tagged frames keep 0x8100)
	l3    []byte
	// IP fields, valid iff ipv (4 or 6)
	ipv      int
	src, dst netip.Addr
	proto    uint8 // transport protocol (after a lone IPv6 fragment header for proto tests)
	directP  bool  // proto is the IP header's own protocol field (port tests need it)
	l4       []byte
	firstFr  bool // not a non-first IPv4 fragment
}

// l3Of finds the network header of a frame of link type link.
func l3Of(link int, data []byte) (uint16, []byte, bool) {
	byVersion := func(p []byte) uint16 {
		if len(p) == 0 {
			return 0
		}
		switch p[0] >> 4 {
		case 4:
			return 0x0800
		case 6:
			return 0x86dd
		}
		return 0
	}
	switch link {
	case linkEthernet:
		if len(data) < 14 {
			return 0, nil, false
		}
		return binary.BigEndian.Uint16(data[12:14]), data[14:], true
	case linkRaw, linkRawAlt1, linkRawAlt2:
		return byVersion(data), data, true
	case linkLinuxSLL:
		if len(data) < 16 {
			return 0, nil, false
		}
		return binary.BigEndian.Uint16(data[14:16]), data[16:], true
	case linkLinuxSLL2:
		if len(data) < 20 {
			return 0, nil, false
		}
		return binary.BigEndian.Uint16(data[0:2]), data[20:], true
	case linkNull, linkLoop:
		if len(data) < 4 {
			return 0, nil, false
		}
		return byVersion(data[4:]), data[4:], true
	case linkPPP:
		p := data
		if len(p) >= 2 && p[0] == 0xff && p[1] == 0x03 {
			p = p[2:]
		}
		if len(p) < 2 {
			return 0, nil, false
		}
		switch binary.BigEndian.Uint16(p) {
		case 0x0021:
			return 0x0800, p[2:], true
		case 0x0057:
			return 0x86dd, p[2:], true
		}
		return 0, nil, true
	}
	return 0, nil, false
}

func (f *frame) decode(link int, data []byte) bool {
	et, l3, ok := l3Of(link, data)
	if !ok {
		return false
	}
	*f = frame{etype: et, l3: l3}
	switch et {
	case 0x0800:
		if len(l3) < 20 || l3[0]>>4 != 4 {
			return true
		}
		f.ipv = 4
		f.src = netip.AddrFrom4([4]byte(l3[12:16]))
		f.dst = netip.AddrFrom4([4]byte(l3[16:20]))
		f.proto, f.directP = l3[9], true
		f.firstFr = binary.BigEndian.Uint16(l3[6:8])&0x1fff == 0
		if ihl := int(l3[0]&0x0f) * 4; ihl >= 20 && len(l3) >= ihl {
			f.l4 = l3[ihl:]
		}
	case 0x86dd:
		if len(l3) < 40 {
			return true
		}
		f.ipv = 6
		f.src = netip.AddrFrom16([16]byte(l3[8:24]))
		f.dst = netip.AddrFrom16([16]byte(l3[24:40]))
		f.proto, f.directP = l3[6], true
		f.firstFr = true
		f.l4 = l3[40:]
		if f.proto == 44 && len(l3) >= 48 { // a lone fragment header
			f.proto, f.directP = l3[40], false
		}
	}
	return true
}

func (pr *prim) match(f *frame) bool {
	ipOK := func() bool {
		switch pr.proto {
		case protoIP:
			return f.ipv == 4
		case protoIP6:
			return f.ipv == 6
		case protoARP:
			return false
		}
		return f.ipv != 0
	}
	switch pr.kind {
	case kindProto:
		switch pr.proto {
		case protoIP:
			return f.etype == 0x0800
		case protoIP6:
			return f.etype == 0x86dd
		case protoARP:
			return f.etype == 0x0806
		case protoTCP:
			return f.ipv != 0 && f.proto == 6
		case protoUDP:
			return f.ipv != 0 && f.proto == 17
		case protoICMP:
			return f.ipv == 4 && f.proto == 1
		}
	case kindHost, kindNet:
		if pr.proto != protoIP6 && pr.proto != protoIP && (f.etype == 0x0806 || f.etype == 0x8035) && pr.pfx.Addr().Is4() {
			// ARP/RARP over Ethernet with IPv4 addresses.
			a := f.l3
			if len(a) < 28 || binary.BigEndian.Uint16(a[0:2]) != 1 || binary.BigEndian.Uint16(a[2:4]) != 0x0800 {
				return false
			}
			return pr.dirMatch(netip.AddrFrom4([4]byte(a[14:18])), netip.AddrFrom4([4]byte(a[24:28])))
		}
		if pr.proto == protoARP || !ipOK() || (f.ipv == 4) != pr.pfx.Addr().Is4() {
			return false
		}
		return pr.dirMatch(f.src, f.dst)
	case kindPort:
		if !ipOK() || !f.directP || !f.firstFr || len(f.l4) < 4 {
			return false
		}
		switch f.proto {
		case 6:
			if pr.proto == protoUDP {
				return false
			}
		case 17:
			if pr.proto == protoTCP {
				return false
			}
		case 132: // SCTP
			if pr.proto != protoAny {
				return false
			}
		default:
			return false
		}
		sp, dp := binary.BigEndian.Uint16(f.l4[0:2]), binary.BigEndian.Uint16(f.l4[2:4])
		switch pr.dir {
		case dirSrc:
			return sp == pr.port
		case dirDst:
			return dp == pr.port
		case dirBoth:
			return sp == pr.port && dp == pr.port
		}
		return sp == pr.port || dp == pr.port
	}
	return false
}

func (pr *prim) dirMatch(src, dst netip.Addr) bool {
	s, d := pr.pfx.Contains(src), pr.pfx.Contains(dst)
	switch pr.dir {
	case dirSrc:
		return s
	case dirDst:
		return d
	case dirBoth:
		return s && d
	}
	return s || d
}

func (n *node) eval(f *frame) bool {
	switch n.op {
	case '&':
		return n.l.eval(f) && n.r.eval(f)
	case '|':
		return n.l.eval(f) || n.r.eval(f)
	case '!':
		return !n.l.eval(f)
	}
	return n.p.match(f)
}
