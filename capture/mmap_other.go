//go:build !unix

package capture

import (
	"io"
	"os"

	"github.com/gopacket/gopacket"
)

func mapFile(f *os.File) (io.Reader, func()) { return nil, nil }

type mappedPcap struct {
	snaplen uint32
	link    int
}

func (p *mappedPcap) setSnaplen(uint32) {}

func (p *mappedPcap) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	return nil, gopacket.CaptureInfo{}, io.EOF
}

func (p *mappedPcap) offset() int64 { return 0 }

func fastPcap(peeker) (*mappedPcap, bool, error) { return nil, false, nil }

// record is never called here (fastPcap maps no file: r.mp stays nil); it
// exists so that the Reader compiles on every system.
func (p *mappedPcap) record() (data []byte, sec, nsec int64, capLen, wireLen int, err error) {
	return nil, 0, 0, 0, 0, io.EOF
}

// nextEther is never called here (r.mp stays nil).
func (r *Reader) nextEther(segs []Segment) int { return 0 }
