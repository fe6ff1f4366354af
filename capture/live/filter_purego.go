//go:build !pcap

package live

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/packetcap/go-pcap/filter"
	"golang.org/x/net/bpf"
)

const pureGo = true

// FilterCompiler names the filter compiler in the binary, for --help.
const FilterCompiler = "packetcap/go-pcap (pure Go; subset: host, net, port, src, dst, tcp, udp, ip, ip6, arp with and/or/not and parentheses)"

// allowedWords are the keywords the pure-Go compiler is trusted with: it
// silently misreads others (tcp[13] & 2 != 0 compiles to plain "tcp",
// portrange to a program that tests nothing), so they are refused here.
var allowedWords = map[string]bool{
	"host": true, "net": true, "port": true, "src": true, "dst": true,
	"tcp": true, "udp": true, "ip": true, "ip6": true, "arp": true,
	"and": true, "or": true, "not": true,
}

// refusedWords are pcap-filter keywords outside that subset; any other word
// is taken for a value (address, network, port number, host name).
var refusedWords = map[string]bool{
	"portrange": true, "greater": true, "less": true, "len": true, "vlan": true, "mpls": true,
	"proto": true, "ether": true, "broadcast": true, "multicast": true, "gateway": true,
	"icmp": true, "icmp6": true, "igmp": true, "sctp": true, "wlan": true, "type": true,
	"subtype": true, "mask": true, "inbound": true, "outbound": true, "ifname": true,
	"on": true, "rnr": true, "rulenum": true, "reason": true, "rset": true, "action": true,
	"pppoed": true, "pppoes": true, "geneve": true, "iso": true, "decnet": true, "ra": true,
	"ta": true, "addr1": true, "addr2": true, "addr3": true, "addr4": true, "dir": true,
	"fddi": true, "tr": true, "atalk": true, "aarp": true, "ipx": true, "stp": true,
	"netbeui": true, "lat": true, "sca": true, "moprc": true, "mopdl": true, "rarp": true,
	"llc": true, "ah": true, "esp": true, "pim": true, "vrrp": true, "carp": true, "protochain": true,
}

// checkSubset refuses expressions outside the subset FilterCompiler names.
func checkSubset(expr string) error {
	depth := 0
	var words []string
	for _, f := range strings.FieldsFunc(expr, func(r rune) bool { return unicode.IsSpace(r) }) {
		for _, r := range f {
			switch r {
			case '(':
				depth++
			case ')':
				depth--
				if depth < 0 {
					return errors.New("unbalanced parentheses")
				}
			case '[', ']', '=', '<', '>', '+', '*', '%', '^', '|', '&', '!':
				if !(f == "&&" || f == "||" || f == "!") {
					return fmt.Errorf("%q: byte offsets, arithmetic and comparisons need libpcap's compiler (build tcpviz with -tags pcap)", f)
				}
			}
		}
		w := strings.Trim(f, "()")
		if w != "" {
			words = append(words, strings.ToLower(w))
		}
	}
	if depth != 0 {
		return errors.New("unbalanced parentheses")
	}
	if len(words) == 0 {
		return errors.New("empty expression")
	}
	for i, w := range words {
		if refusedWords[w] {
			return fmt.Errorf("%q is not supported by the pure-Go filter compiler; use %s, or build tcpviz with -tags pcap for the full pcap-filter(7) language", w, "host, net, port, src, dst, tcp, udp, ip, ip6, arp, and, or, not")
		}
		if !allowedWords[w] && w != "&&" && w != "||" && w != "!" {
			// A value: it must follow host, net or port.
			if i == 0 || (words[i-1] != "host" && words[i-1] != "net" && words[i-1] != "port") {
				return fmt.Errorf("%q: unknown keyword (values follow host, net or port)", w)
			}
		}
	}
	return nil
}

func compileBPF(expr string, link, snaplen int) (raw []bpf.RawInstruction, err error) {
	switch link {
	case linkEthernet, linkNull, linkLoop, linkPPP, linkRaw, linkRawAlt1, linkRawAlt2, linkLinuxSLL, linkLinuxSLL2:
	default:
		return nil, fmt.Errorf("the pure-Go filter compiler handles Ethernet, Linux cooked, PPP, null/loopback and raw IP frames, not link type %d; build tcpviz with -tags pcap", link)
	}
	if err := checkSubset(expr); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, fmt.Errorf("the pure-Go compiler failed: %v", r)
		}
	}()
	f := filter.NewExpression(expr).Compile()
	if f == nil {
		return nil, errors.New("cannot parse the expression")
	}
	ins, err := f.Compile()
	if err != nil {
		return nil, err
	}
	if len(ins) == 0 {
		return nil, errors.New("cannot parse the expression")
	}
	raw, err = bpf.Assemble(ins)
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// asEthernet rewrites an IP frame of another link type as an Ethernet frame
// (zero MAC addresses, EtherType from the link header) in *buf, because the
// pure-Go compiler only knows Ethernet offsets. It reports false for frames
// that carry neither IPv4 nor IPv6.
func asEthernet(link int, data []byte, buf *[]byte) ([]byte, bool) {
	var ip []byte
	var etype uint16
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
	case linkRaw, linkRawAlt1, linkRawAlt2:
		ip, etype = data, byVersion(data)
	case linkLinuxSLL:
		if len(data) < 16 {
			return nil, false
		}
		ip, etype = data[16:], binary.BigEndian.Uint16(data[14:16])
	case linkLinuxSLL2:
		if len(data) < 20 {
			return nil, false
		}
		ip, etype = data[20:], binary.BigEndian.Uint16(data[0:2])
	case linkNull, linkLoop:
		if len(data) < 4 {
			return nil, false
		}
		ip, etype = data[4:], byVersion(data[4:])
	case linkPPP:
		p := data
		if len(p) >= 2 && p[0] == 0xff && p[1] == 0x03 {
			p = p[2:]
		}
		if len(p) < 2 {
			return nil, false
		}
		switch binary.BigEndian.Uint16(p) {
		case 0x0021:
			etype = 0x0800
		case 0x0057:
			etype = 0x86dd
		}
		ip = p[2:]
	default:
		return nil, false
	}
	if etype != 0x0800 && etype != 0x86dd {
		return nil, false
	}
	b := append((*buf)[:0], make([]byte, 12)...)
	b = binary.BigEndian.AppendUint16(b, etype)
	b = append(b, ip...)
	*buf = b
	return b, true
}
