package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/tcpviz/tcpviz/capture"
	"golang.org/x/net/bpf"
)

// Options configure a live capture.
type Options struct {
	// Iface is the interface name, as ip link shows it.
	Iface string
	// Filter is a pcap-filter(7) expression; empty captures every frame. It
	// is attached to the socket (kernel filtering) and run again in user
	// space, so no frame received before the attachment slips through.
	Filter string
	// Count stops the capture after this many frames passed the filter; 0
	// means no limit.
	Count int64
	// Duration stops the capture after this long; 0 means no limit.
	Duration time.Duration
	// Write, if not empty, is a pcapng file that receives every frame
	// analysed (those that passed the filter), with nanosecond timestamps.
	// It is written to a temporary file and renamed at Close.
	Write string
	// NoPromisc leaves the interface out of promiscuous mode.
	NoPromisc bool
}

// errTimeout is what a handle returns when no frame came within its poll
// timeout; the Capture then checks whether it should stop.
var errTimeout = errors.New("poll timeout")

// pollTimeout bounds how long a stop (Ctrl-C, Duration) waits for a frame.
const pollTimeout = 100 * time.Millisecond

// handle is one backend's open interface.
type handle interface {
	capture.PacketSource // returns errTimeout when idle for pollTimeout
	linkType() int
	setFilter(raw []bpf.RawInstruction, expr string) error
	// stats returns frames received by the socket and dropped by the
	// kernel (ring full), as far as the backend knows.
	stats() (received, dropped int64, err error)
	close()
}

// A Capture is an open live capture. Read it through Reader from one
// goroutine; Stop and Close may be called from any.
type Capture struct {
	opts     Options
	h        handle
	link     int
	filter   *Filter
	reader   *capture.Reader
	ctx      context.Context
	cancel   context.CancelFunc
	stop     atomic.Bool
	accepted int64
	w        *pcapgo.NgWriter
	wf       *os.File
	werr     error
	closeMu  sync.Mutex
	closed   bool
	start    time.Time
}

// Open opens opts.Iface with the backend in the binary (see Backend). The
// capture ends when ctx is done, after opts.Duration or opts.Count, or on
// Stop; Reader.Next then returns io.EOF. Opening an interface needs
// CAP_NET_RAW (root); errors name the interface.
func Open(ctx context.Context, opts Options) (*Capture, error) {
	if opts.Iface == "" {
		return nil, errors.New("live capture: no interface given")
	}
	h, err := openHandle(opts)
	if err != nil {
		return nil, fmt.Errorf("capture on %s (%s): %w", opts.Iface, Backend, err)
	}
	c := &Capture{opts: opts, h: h, link: h.linkType(), start: time.Now()}
	if opts.Filter != "" {
		if c.filter, err = CompileFilter(opts.Filter, c.link); err != nil {
			h.close()
			return nil, err
		}
		if err := h.setFilter(c.filter.Raw, opts.Filter); err != nil { // nil Raw: user space only
			h.close()
			return nil, fmt.Errorf("capture on %s: attach filter: %w", opts.Iface, err)
		}
	}
	if opts.Write != "" {
		if err := c.openWriter(); err != nil {
			h.close()
			return nil, err
		}
	}
	if opts.Duration > 0 {
		c.ctx, c.cancel = context.WithTimeout(ctx, opts.Duration)
	} else {
		c.ctx, c.cancel = context.WithCancel(ctx)
	}
	c.reader, err = capture.NewSourceReader(source{c}, c.link, opts.Iface)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.reader.SetFrameHook(c.hook)
	return c, nil
}

// Reader returns the capture.Reader over the captured frames; it is the
// same Reader on every call.
func (c *Capture) Reader() *capture.Reader { return c.reader }

// LinkType returns the pcap link type of the interface's frames.
func (c *Capture) LinkType() int { return c.link }

// Stop makes the Reader end (io.EOF) at its next frame or poll timeout.
func (c *Capture) Stop() { c.stop.Store(true) }

// source adapts the handle to the Reader: it hides poll timeouts, ends the
// capture when asked to, and numbers every frame interface 0 as the -w file
// does.
type source struct{ c *Capture }

func (s source) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	c := s.c
	for {
		if c.stop.Load() || c.ctx.Err() != nil {
			return nil, gopacket.CaptureInfo{}, io.EOF
		}
		data, ci, err := c.h.ZeroCopyReadPacketData()
		if errors.Is(err, errTimeout) {
			continue
		}
		if err != nil {
			return nil, ci, fmt.Errorf("read %s: %w", c.opts.Iface, err)
		}
		ci.InterfaceIndex = 0
		ci.AncillaryData = nil
		return data, ci, nil
	}
}

// hook filters in user space, writes the frame to -w and counts it.
func (c *Capture) hook(link int, data []byte, t capture.Timestamp, ci gopacket.CaptureInfo) bool {
	if c.filter != nil && !c.filter.Match(data) {
		return false
	}
	if c.opts.Count > 0 && c.accepted >= c.opts.Count {
		c.stop.Store(true)
		return false
	}
	c.accepted++
	if c.opts.Count > 0 && c.accepted >= c.opts.Count {
		c.stop.Store(true)
	}
	if c.w != nil && c.werr == nil {
		ci.InterfaceIndex = 0
		if err := c.w.WritePacket(ci, data); err != nil {
			c.werr = fmt.Errorf("write %s: %w", c.opts.Write, err)
		}
	}
	return true
}

func (c *Capture) openWriter() error {
	dir := filepath.Dir(c.opts.Write)
	f, err := os.CreateTemp(dir, "."+filepath.Base(c.opts.Write)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", c.opts.Write, err)
	}
	intf := pcapgo.NgInterface{
		Name:                c.opts.Iface,
		Filter:              c.opts.Filter,
		LinkType:            layers.LinkType(c.link),
		SnapLength:          DefaultSnaplen,
		TimestampResolution: 9,
	}
	opts := pcapgo.DefaultNgWriterOptions
	opts.SectionInfo.Application = "tcpviz"
	w, err := pcapgo.NewNgWriterInterface(f, intf, opts)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", c.opts.Write, err)
	}
	c.w, c.wf = w, f
	return nil
}

// Stats are the counters of a live capture.
type Stats struct {
	// Received and Dropped are the kernel's counts for the socket: frames
	// it delivered, and frames it dropped because the ring was full.
	Received, Dropped int64
	// Accepted are the frames that passed the filter and were analysed.
	Accepted int64
}

// Stats returns the capture's counters so far.
func (c *Capture) Stats() Stats {
	rx, drop, _ := c.h.stats()
	return Stats{Received: rx, Dropped: drop, Accepted: c.accepted}
}

// Close ends the capture, finishes the -w file (flush and rename) and
// releases the interface. It returns the first error writing the file.
// Call it after the Reader returned io.EOF (or was abandoned).
func (c *Capture) Close() error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.closed {
		return c.werr
	}
	c.closed = true
	c.cancel()
	c.h.close()
	if c.w != nil {
		err := c.w.Flush()
		if cerr := c.wf.Close(); err == nil {
			err = cerr
		}
		if err == nil && c.werr == nil {
			err = os.Chmod(c.wf.Name(), 0o644)
			if err == nil {
				err = os.Rename(c.wf.Name(), c.opts.Write)
			}
		}
		if err != nil && c.werr == nil {
			c.werr = fmt.Errorf("write %s: %w", c.opts.Write, err)
		}
		if c.werr != nil {
			os.Remove(c.wf.Name())
		}
	}
	return c.werr
}
