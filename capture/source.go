package capture

import (
	"fmt"

	"github.com/gopacket/gopacket"
)

// A PacketSource yields link-layer frames, as a live capture handle does
// (gopacket/afpacket, gopacket/pcap). The data returned is valid until the
// next call; an error ends the capture (io.EOF for a clean end).
type PacketSource interface {
	ZeroCopyReadPacketData() (data []byte, ci gopacket.CaptureInfo, err error)
}

// NewSourceReader returns a Reader over the frames of src, all of pcap link
// type link (LINKTYPE_*, e.g. 1 for Ethernet); name is used in errors and
// warnings (an interface name, for instance). Frame timestamps are taken from
// ci.Timestamp as given. It fails with ErrUnsupportedLinkType for a link type
// SupportedLink rejects.
func NewSourceReader(src PacketSource, link int, name string) (*Reader, error) {
	if !SupportedLink(link) {
		return nil, &FrameError{File: name, Err: fmt.Errorf("%w %d", ErrUnsupportedLinkType, link)}
	}
	return &Reader{name: name, src: src, link: link, format: FormatPcap}, nil
}

// A FrameHook sees every frame before it is decoded: its link type (pcap
// LINKTYPE_*), its captured bytes (valid only during the call), its capture
// time and capture info. Returning false drops the frame: it is counted in
// Stats.Filtered only, and frame numbers skip it, so a filtered capture is
// numbered as the same frames pre-filtered by tcpdump would be.
type FrameHook func(link int, data []byte, t Timestamp, ci gopacket.CaptureInfo) bool

// SetFrameHook installs h (nil removes it). Call it before the first Next.
// Capture filters (--filter) and copying frames to a file (-w) are hooks.
func (r *Reader) SetFrameHook(h FrameHook) { r.hook, r.keepNumbers = h, false }

// SetFileFilter installs h as a filter over a capture file (--filter on a
// file): unlike SetFrameHook, a frame h rejects keeps its place — frame
// numbers stay the file's, and the file's first frame stays the origin of
// Stats.First (every t_s), filtered or not, as tshark's display filter
// keeps frame.number and frame.time_relative. Rejected frames are counted
// in Stats.Filtered only.
func (r *Reader) SetFileFilter(h FrameHook) { r.hook, r.keepNumbers = h, true }
