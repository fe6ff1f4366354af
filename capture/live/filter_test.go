//go:build !pcap

package live

import (
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"net/netip"
	"time"
)

// tcpFrame is IPv4 10.0.0.1:40000 → 10.0.1.1:5201, a SYN.
func tcpFrame(t *testing.T) []byte {
	t.Helper()
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.1.1:5201"), 1, 2)
	return c.Syn(time.Unix(0, 0), pcaptest.C2S).IP()
}

func TestParseFilterErrors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"", "empty"},
		{"port", "must follow"},
		{"host 10.0.0.1 and (tcp", "missing )"},
		{"tcp[13] & 2 != 0", "not supported"},
		{"portrange 1-100", "not supported"},
		{"host example.org", "names are not resolved"},
		{"port http", "service names"},
		{"net 10.0.0.1/8", "non-network bits"},
		{"ip6 host 10.0.0.1", "IPv4 address with ip6"},
		{"tcp host 10.0.0.1", "host and net take"},
		{"src tcp", "must be followed"},
		{"tcp )", "unexpected"},
	}
	for _, tt := range tests {
		_, err := CompileFilter(tt.expr, linkEthernet)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CompileFilter(%q) error = %v, want one saying %q", tt.expr, err, tt.want)
		}
	}
	if _, err := CompileFilter("tcp", 127); err == nil || !strings.Contains(err.Error(), "link type 127") {
		t.Errorf("CompileFilter on radiotap: error = %v, want one naming link type 127", err)
	}
}

// TestFilterLinkTypes runs one expression on the same packet framed for
// every link type the pure-Go filter knows.
func TestFilterLinkTypes(t *testing.T) {
	ip := tcpFrame(t)
	frames := map[int][]byte{
		linkEthernet:  pcaptest.Ethernet(ip),
		linkRaw:       pcaptest.Raw(ip),
		linkLinuxSLL:  pcaptest.LinuxSLL(ip),
		linkLinuxSLL2: pcaptest.LinuxSLL2(ip, 3),
		linkNull:      pcaptest.Null(ip, 2, false),
		linkPPP:       pcaptest.PPP(ip),
	}
	for link, fr := range frames {
		for expr, want := range map[string]bool{
			"tcp dst port 5201 and src net 10.0.0.0/24": true,
			"host 10.0.1.1 and not udp":                 true,
			"port 80 or 443":                            false,
			"ip6 or arp":                                false,
			"tcp and src port 5201":                     false,
		} {
			f, err := CompileFilter(expr, link)
			if err != nil {
				t.Fatalf("link %d: %v", link, err)
			}
			if got := f.Match(fr); got != want {
				t.Errorf("link %d: %q matches = %v, want %v", link, expr, got, want)
			}
		}
	}
	// A VLAN-tagged frame matches no IP test, as in libpcap without "vlan".
	f, _ := CompileFilter("tcp", linkEthernet)
	if f.Match(pcaptest.Ethernet(ip, 100)) {
		t.Error(`"tcp" matches a VLAN-tagged frame; libpcap needs "vlan and tcp" for it`)
	}
}
