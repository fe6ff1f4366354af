//go:build pcap

package live

import (
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcap"
	"golang.org/x/net/bpf"
)

const pureGo = false

// FilterCompiler names the filter compiler in the binary, for --help.
var FilterCompiler = "libpcap's pcap_compile: the full pcap-filter(7) language"

func compileBPF(expr string, link, snaplen int) ([]bpf.RawInstruction, error) {
	if link == linkRaw {
		link = 12 // libpcap compiles for DLT values; LINKTYPE_RAW is DLT_RAW (12 on Linux)
	}
	ins, err := pcap.CompileBPFFilter(layers.LinkType(link), snaplen, expr)
	if err != nil {
		return nil, err
	}
	raw := make([]bpf.RawInstruction, len(ins))
	for i, in := range ins {
		raw[i] = bpf.RawInstruction{Op: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return raw, nil
}

func newMatcher(string, int) (matcher, error) { return nil, nil }
