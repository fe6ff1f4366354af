//go:build pcap

package live

import (
	"errors"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcap"
	"golang.org/x/net/bpf"
)

// Backend names the capture backend in the binary, for --help.
var Backend = pcap.Version() + " (gopacket/pcap, cgo build tag pcap)"

type pcapHandle struct{ h *pcap.Handle }

func openHandle(o Options) (handle, error) {
	in, err := pcap.NewInactiveHandle(o.Iface)
	if err != nil {
		return nil, err
	}
	defer in.CleanUp()
	for _, set := range []func() error{
		func() error { return in.SetSnapLen(DefaultSnaplen) },
		func() error { return in.SetPromisc(!o.NoPromisc) },
		func() error { return in.SetTimeout(pollTimeout) },
		func() error { return in.SetImmediateMode(true) },
		func() error { return in.SetBufferSize(32 << 20) },
	} {
		if err := set(); err != nil {
			return nil, err
		}
	}
	h, err := in.Activate()
	if err != nil {
		return nil, err
	}
	return &pcapHandle{h: h}, nil
}

func (p *pcapHandle) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	data, ci, err := p.h.ZeroCopyReadPacketData()
	if errors.Is(err, pcap.NextErrorTimeoutExpired) {
		return nil, ci, errTimeout
	}
	return data, ci, err
}

func (p *pcapHandle) linkType() int { return int(p.h.LinkType()) }

func (p *pcapHandle) setFilter(_ []bpf.RawInstruction, expr string) error {
	return p.h.SetBPFFilter(expr)
}

func (p *pcapHandle) stats() (int64, int64, error) {
	s, err := p.h.Stats()
	if err != nil {
		return 0, 0, err
	}
	return int64(s.PacketsReceived), int64(s.PacketsDropped), nil
}

func (p *pcapHandle) close() { p.h.Close() }
