package capture

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// capOverWireWarning is the one warning of capOverWire's captures: two
// frames whose record gives fewer original than captured bytes.
const capOverWireWarning = "test.pcap: 2 frames whose record gives more captured bytes than its original length (the first is frame 2: 178 > 60); each read with its captured length as its original length (the captured bytes are in the file, and a frame cannot hold more than the wire carried)"

// capOverWire returns a capture of format f holding threeSegs (178 bytes
// each) whose frames 2 and 3 have a record saying 60 and 177 original
// bytes.
func capOverWire(f pcaptest.Format) []byte {
	c := pcaptest.New(pcaptest.Options{Format: f, LinkType: pcaptest.LinkEthernet})
	for i, fr := range threeSegs() {
		c.AddLen(t0.Add(time.Duration(i)*time.Millisecond), 0, fr, []int{178, 60, 177}[i])
	}
	return c.Bytes()
}

// TestCapOverWire: a record with more captured bytes than its original
// length does not end the capture (it did, at that frame, with exit 0 and
// the frames after it left out): every frame is read, the original length
// is taken to be the captured length (178, so the IP length, 164, is not
// bounded and the payload stays 100 bytes, as tshark and tcptrace read
// it), the frames are counted in Stats.CapOverWire and one warning names
// the first and the count. The same from a file read in place, a stream,
// gzip, zstd, and pcapng.
func TestCapOverWire(t *testing.T) {
	pcap, ng := capOverWire(pcaptest.PcapMicro), capOverWire(pcaptest.Pcapng)
	dir := t.TempDir()
	file := filepath.Join(dir, "test.pcap")
	if err := os.WriteFile(file, pcap, 0o644); err != nil {
		t.Fatal(err)
	}
	open := map[string]func() (*Reader, error){
		"file":   func() (*Reader, error) { return Open(file) },
		"stream": func() (*Reader, error) { return NewReader(bytes.NewReader(pcap), "test.pcap") },
		"gzip":   func() (*Reader, error) { return NewReader(bytes.NewReader(gzipped(t, pcap)), "test.pcap") },
		"zstd":   func() (*Reader, error) { return NewReader(bytes.NewReader(zstded(t, pcap)), "test.pcap") },
		"pcapng": func() (*Reader, error) { return NewReader(bytes.NewReader(ng), "test.pcap") },
	}
	for name, o := range open {
		t.Run(name, func(t *testing.T) {
			r, err := o()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var segs []Segment
			for {
				var s Segment
				if err := r.Next(&s); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("Next = %v", err)
				}
				segs = append(segs, s)
			}
			if len(segs) != 3 {
				t.Fatalf("%d segments, want 3", len(segs))
			}
			for i, s := range segs {
				if s.Frame != int64(i+1) || s.CapLen != 178 || s.WireLen != 178 || s.PayloadLen != 100 || s.IPLen != 164 {
					t.Errorf("segment %d: frame %d, CapLen %d, WireLen %d, PayloadLen %d, IPLen %d; want %d, 178, 178, 100, 164",
						i, s.Frame, s.CapLen, s.WireLen, s.PayloadLen, s.IPLen, i+1)
				}
			}
			file := "test.pcap"
			if name == "file" {
				file = filepath.Join(dir, "test.pcap")
			}
			want := file + capOverWireWarning[len("test.pcap"):]
			st := r.Stats()
			if st.Frames != 3 || st.CapOverWire != 2 || st.IPLenOverWire != 0 || st.BadWireLen != 0 {
				t.Errorf("Stats: %d frames, CapOverWire %d, IPLenOverWire %d, BadWireLen %d; want 3, 2, 0, 0", st.Frames, st.CapOverWire, st.IPLenOverWire, st.BadWireLen)
			}
			if w := r.Warnings(); len(w) != 1 || w[0] != want {
				t.Errorf("Warnings() = %q, want [%q]", w, want)
			}
		})
	}
}
