//go:build linux

package sat

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// maxFrame is the largest frame the emulator forwards (offloads must be off,
// so frames are at most MTU + Ethernet header).
const maxFrame = 65536

// pendingCap bounds the frames in flight per direction inside the emulator
// (on top of the modelled queue); excess frames are dropped and counted.
const pendingCap = 1 << 16

type frame struct {
	at   time.Time
	data []byte
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// openPort opens a promiscuous AF_PACKET socket bound to ifname that does not
// see its own transmissions.
func openPort(ifname string) (int, error) {
	ifi, err := net.InterfaceByName(ifname)
	if err != nil {
		return -1, fmt.Errorf("interface %s: %w", ifname, err)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		return -1, fmt.Errorf("packet socket: %w", err)
	}
	fail := func(step string, err error) (int, error) {
		unix.Close(fd)
		return -1, fmt.Errorf("%s on %s: %w", step, ifname, err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_IGNORE_OUTGOING, 1); err != nil {
		return fail("PACKET_IGNORE_OUTGOING", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20); err != nil {
		return fail("SO_RCVBUFFORCE", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, 8<<20); err != nil {
		return fail("SO_SNDBUFFORCE", err)
	}
	tv := unix.Timeval{Usec: 100000}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fail("SO_RCVTIMEO", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}); err != nil {
		return fail("bind", err)
	}
	mr := unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_PROMISC}
	if err := unix.SetsockoptPacketMreq(fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP, &mr); err != nil {
		return fail("promisc", err)
	}
	return fd, nil
}

// RunEmulator forwards frames between cfg.A and cfg.B through one Link per
// direction until ctx is cancelled. It needs CAP_NET_RAW and both interfaces
// up with offloads off (GSO/TSO super-frames and partial checksums would be
// dropped after re-injection).
func RunEmulator(ctx context.Context, cfg EmuConfig) error {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	fa, err := openPort(cfg.A)
	if err != nil {
		return err
	}
	defer unix.Close(fa)
	fb, err := openPort(cfg.B)
	if err != nil {
		return err
	}
	defer unix.Close(fb)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dirs := []*direction{
		{name: cfg.A + "->" + cfg.B, in: fa, out: fb, link: NewLink(cfg.AtoB, cfg.Seed)},
		{name: cfg.B + "->" + cfg.A, in: fb, out: fa, link: NewLink(cfg.BtoA, cfg.Seed+1)},
	}
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for _, d := range dirs {
		d.pending = make(chan frame, pendingCap)
		wg.Add(2)
		go func() { defer wg.Done(); errc <- d.receive(ctx) }()
		go func() { defer wg.Done(); errc <- d.release(ctx) }()
	}
	logf("emulator %s<->%s: %s=%+v %s=%+v", cfg.A, cfg.B, dirs[0].name, cfg.AtoB, dirs[1].name, cfg.BtoA)
	if cfg.Ready != nil {
		cfg.Ready()
	}
	var first error
	for range 4 {
		err := <-errc
		if err != nil && first == nil {
			first = err
			cancel()
		}
	}
	wg.Wait()
	for _, d := range dirs {
		d.mu.Lock()
		logf("emulator %s stats: %+v overflow=%d late_max=%v", d.name, d.link.Stats, d.overflow, d.lateMax)
		d.mu.Unlock()
	}
	return first
}

type direction struct {
	name    string
	in, out int
	pending chan frame

	mu       sync.Mutex
	link     *Link
	overflow int64
	lateMax  time.Duration
}

func (d *direction) receive(ctx context.Context) error {
	buf := make([]byte, maxFrame)
	for ctx.Err() == nil {
		n, _, err := unix.Recvfrom(d.in, buf, 0)
		if err != nil {
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				continue
			}
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("receive %s: %w", d.name, err)
		}
		now := time.Now()
		d.mu.Lock()
		at, v := d.link.Admit(now, n)
		d.mu.Unlock()
		if v != Deliver {
			continue
		}
		f := frame{at: at, data: append([]byte(nil), buf[:n]...)}
		select {
		case d.pending <- f:
		default:
			d.mu.Lock()
			d.overflow++
			d.mu.Unlock()
		}
	}
	return nil
}

func (d *direction) release(ctx context.Context) error {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		var f frame
		select {
		case <-ctx.Done():
			return nil
		case f = <-d.pending:
		}
		if wait := time.Until(f.at); wait > 0 {
			t.Reset(wait)
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
		}
		if late := time.Since(f.at); late > d.lateMax {
			d.mu.Lock()
			d.lateMax = late
			d.mu.Unlock()
		}
		for {
			_, err := unix.Write(d.out, f.data)
			if err == nil {
				break
			}
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if errors.Is(err, unix.ENOBUFS) || errors.Is(err, unix.EAGAIN) {
				break // drop, as a full device queue would
			}
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("send %s: %w", d.name, err)
		}
	}
}
