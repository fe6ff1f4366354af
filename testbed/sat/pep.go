//go:build linux

package sat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func (c PEPConfig) control(transparent bool) func(network, address string, rc syscall.RawConn) error {
	return func(network, address string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			f := int(fd)
			if transparent {
				if serr = unix.SetsockoptInt(f, unix.SOL_IP, unix.IP_TRANSPARENT, 1); serr != nil {
					serr = fmt.Errorf("IP_TRANSPARENT: %w", serr)
					return
				}
			}
			if c.CC != "" {
				if serr = unix.SetsockoptString(f, unix.IPPROTO_TCP, unix.TCP_CONGESTION, c.CC); serr != nil {
					serr = fmt.Errorf("TCP_CONGESTION %s: %w", c.CC, serr)
					return
				}
			}
			if c.BufBytes > 0 {
				if serr = unix.SetsockoptInt(f, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, c.BufBytes); serr != nil {
					return
				}
				serr = unix.SetsockoptInt(f, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, c.BufBytes)
			}
		})
		if err != nil {
			return err
		}
		return serr
	}
}

// RunPEP accepts connections redirected by tproxy (their LocalAddr is the
// client's original destination), opens its own connection to that
// destination and relays both directions, half-closing as the ends do, until
// ctx is cancelled. Like PEPsal it acknowledges the client's data locally, so
// the client sees the LAN RTT instead of the satellite RTT. The upstream
// connection uses the router's own address (it is not source-transparent).
func RunPEP(ctx context.Context, cfg PEPConfig) error {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	lc := net.ListenConfig{Control: cfg.control(true)}
	ln, err := lc.Listen(ctx, "tcp4", cfg.Listen)
	if err != nil {
		return fmt.Errorf("pep listen %s: %w", cfg.Listen, err)
	}
	go func() { <-ctx.Done(); ln.Close() }()
	if cfg.Ready != nil {
		cfg.Ready()
	}
	logf("pep listening on %s cc=%q buf=%d", cfg.Listen, cfg.CC, cfg.BufBytes)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("pep accept: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg.relay(ctx, c.(*net.TCPConn), logf)
		}()
	}
}

func (cfg PEPConfig) relay(ctx context.Context, down *net.TCPConn, logf func(string, ...any)) {
	defer down.Close()
	dst := down.LocalAddr().String()
	d := net.Dialer{Control: cfg.control(false), Timeout: 10 * time.Second}
	up, err := d.DialContext(ctx, "tcp4", dst)
	if err != nil {
		logf("pep %s -> %s: %v", down.RemoteAddr(), dst, err)
		return
	}
	defer up.Close()
	upc := up.(*net.TCPConn)
	logf("pep split %s -> %s via %s", down.RemoteAddr(), dst, up.LocalAddr())
	stop := context.AfterFunc(ctx, func() { down.Close(); upc.Close() })
	defer stop()
	var wg sync.WaitGroup
	var n [2]int64
	wg.Add(2)
	go func() { defer wg.Done(); n[0], _ = io.Copy(upc, down); upc.CloseWrite() }()
	go func() { defer wg.Done(); n[1], _ = io.Copy(down, upc); down.CloseWrite() }()
	wg.Wait()
	logf("pep done %s -> %s: up %d B, down %d B", down.RemoteAddr(), dst, n[0], n[1])
}
