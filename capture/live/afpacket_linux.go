//go:build linux && !pcap

package live

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/afpacket"
	"golang.org/x/net/bpf"
)

// Backend names the capture backend in the binary, for --help.
const Backend = "AF_PACKET via gopacket/afpacket (pure Go, no libpcap)"

type afHandle struct {
	tp       *afpacket.TPacket
	link     int
	loopback bool
}

// Ring geometry: 32 blocks of 1 MiB; TPACKET_V3 packs frames of any length
// up to a block (GSO super-frames included), so nothing is cut short.
const (
	afFrameSize    = 1 << 16
	afBlockSize    = 1 << 20
	afNumBlocks    = 32
	afBlockTimeout = 10 * time.Millisecond // how long a partly filled block waits: the output's latency
)

func openHandle(o Options) (handle, error) {
	ifi, err := net.InterfaceByName(o.Iface)
	if err != nil {
		return nil, err
	}
	link, loopback, err := afLinkType(o.Iface)
	if err != nil {
		return nil, err
	}
	tp, err := afpacket.NewTPacket(
		afpacket.OptInterface(ifi.Name),
		afpacket.OptFrameSize(afFrameSize),
		afpacket.OptBlockSize(afBlockSize),
		afpacket.OptNumBlocks(afNumBlocks),
		afpacket.OptBlockTimeout(afBlockTimeout),
		afpacket.OptPollTimeout(pollTimeout),
		afpacket.TPacketVersion3,
	)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("%w (live capture needs root or CAP_NET_RAW)", err)
		}
		return nil, err
	}
	if !o.NoPromisc {
		if err := tp.SetPromiscuous(true); err != nil {
			tp.Close()
			return nil, fmt.Errorf("promiscuous mode: %w", err)
		}
	}
	h := &afHandle{tp: tp, link: link, loopback: loopback}
	if loopback {
		if err := h.setFilter(nil, ""); err != nil {
			tp.Close()
			return nil, fmt.Errorf("loopback filter: %w", err)
		}
	}
	return h, nil
}

// afLinkType maps the interface's ARPHRD type to a pcap link type and
// reports whether it is a loopback interface.
func afLinkType(iface string) (int, bool, error) {
	b, err := os.ReadFile("/sys/class/net/" + iface + "/type")
	if err != nil {
		return 0, false, fmt.Errorf("link type: %w", err)
	}
	t, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false, fmt.Errorf("link type: %w", err)
	}
	switch t {
	case 1: // ARPHRD_ETHER
		return linkEthernet, false, nil
	case 772: // ARPHRD_LOOPBACK: Ethernet headers with zero addresses
		return linkEthernet, true, nil
	case 65534, 776, 778: // ARPHRD_NONE (tun, wireguard), ARPHRD_SIT, ARPHRD_IPGRE: bare IP
		return linkRaw, false, nil
	}
	return 0, false, fmt.Errorf("interface type ARPHRD %d is not supported by the AF_PACKET backend (Ethernet, loopback and raw-IP interfaces are)", t)
}

func (h *afHandle) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	data, ci, err := h.tp.ZeroCopyReadPacketData()
	if errors.Is(err, afpacket.ErrTimeout) {
		return nil, ci, errTimeout
	}
	return data, ci, err
}

func (h *afHandle) linkType() int { return h.link }

// setFilter attaches raw to the socket. On a loopback interface every packet
// passes the socket twice, outgoing and incoming; as libpcap does, only the
// incoming copy is kept, by a kernel-side test of the packet type
// (SKF_AD_PKTTYPE) ahead of the filter.
func (h *afHandle) setFilter(raw []bpf.RawInstruction, _ string) error {
	if !h.loopback {
		if len(raw) == 0 {
			return nil // the filter runs in user space (pure-Go build)
		}
		return h.attach(raw)
	}
	const packetOutgoing = 4 // PACKET_OUTGOING, linux/if_packet.h
	pre, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadExtension{Num: bpf.ExtType},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: packetOutgoing, SkipTrue: 0, SkipFalse: 1},
		bpf.RetConstant{Val: 0},
	})
	if err != nil {
		return err
	}
	if len(raw) == 0 {
		raw, _ = bpf.Assemble([]bpf.Instruction{bpf.RetConstant{Val: DefaultSnaplen}})
	}
	return h.attach(append(pre, raw...))
}

// attach installs prog as libpcap does: a reject-all program first, then
// the ring is drained of the frames queued before (they never passed prog:
// loopback's outgoing copies among them), then prog.
func (h *afHandle) attach(prog []bpf.RawInstruction) error {
	reject, _ := bpf.Assemble([]bpf.Instruction{bpf.RetConstant{Val: 0}})
	if err := h.tp.SetBPF(reject); err != nil {
		return err
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		if _, _, err := h.tp.ZeroCopyReadPacketData(); err != nil {
			break // afpacket.ErrTimeout: the ring is empty
		}
	}
	return h.tp.SetBPF(prog)
}

func (h *afHandle) stats() (int64, int64, error) {
	_, v3, err := h.tp.SocketStats()
	if err != nil {
		return 0, 0, err
	}
	return int64(v3.Packets()), int64(v3.Drops()), nil
}

func (h *afHandle) close() { h.tp.Close() }
