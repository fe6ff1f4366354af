package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestSeqCtl: the 802.11 Sequence Control field reaches Segment.SeqCtl
// (sequence number << 4 | fragment number), with and without QoS and FCS,
// and is 0 off 802.11.
func TestSeqCtl(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lt    uint32
		frame []byte
		want  uint16
	}{
		{"radiotap+fcs", pcaptest.LinkRadiotap, pcaptest.Radiotap(pcaptest.Dot11{Retry: true, SeqNum: 1234, FragNum: 2}.Frame(ip4), true), 1234<<4 | 2},
		{"dot11 qos", pcaptest.LinkIEEE80211, pcaptest.Dot11{QoS: true, SeqNum: 4095, FragNum: 15}.Frame(ip4), 0xffff},
		{"ethernet", pcaptest.LinkEthernet, pcaptest.Ethernet(ip4), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, ok, _ := decodeOne(t, tt.lt, 0, tt.frame)
			if !ok {
				t.Fatal("no segment")
			}
			if got := s.SeqCtl; got != tt.want {
				t.Errorf("SeqCtl = %#04x, want %#04x", got, tt.want)
			}
		})
	}
}

// TestFineTime: a capture whose first stamps fall on multiples of 10 µs
// and whose third is 501 µs past. Read from a file, every segment says
// FineTime (pre-scan); read as a stream, only from the third on.
func TestFineTime(t *testing.T) {
	base := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	stamps := []time.Duration{0, 20 * time.Millisecond, 20*time.Millisecond + 501*time.Microsecond, 21 * time.Millisecond}
	for _, format := range []pcaptest.Format{pcaptest.PcapMicro, pcaptest.Pcapng} {
		f := pcaptest.New(pcaptest.Options{Format: format, LinkType: pcaptest.LinkEthernet})
		for _, d := range stamps {
			f.Add(base.Add(d), 0, pcaptest.Ethernet(ip4))
		}
		path := filepath.Join(t.TempDir(), "c")
		if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range stamps {
			var s Segment
			if err := r.Next(&s); err != nil {
				t.Fatalf("format %d: Next = %v", format, err)
			}
			if !s.FineTime {
				t.Errorf("format %d, file: frame %d FineTime = false, want true", format, i+1)
			}
		}
		r.Close()
		r, err = NewReader(bytes.NewReader(f.Bytes()), "stream")
		if err != nil {
			t.Fatal(err)
		}
		for i := range stamps {
			var s Segment
			if err := r.Next(&s); err != nil {
				t.Fatalf("format %d: Next = %v", format, err)
			}
			if want := i >= 2; s.FineTime != want {
				t.Errorf("format %d, stream: frame %d FineTime = %v, want %v", format, i+1, s.FineTime, want)
			}
		}
	}
	// Past PrescanFrames the pre-scan has not looked: the stream rule
	// takes over.
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkEthernet})
	for i := range PrescanFrames + 2 {
		d := time.Duration(i) * 10 * time.Microsecond
		if i == PrescanFrames+1 {
			d += 3 * time.Microsecond
		}
		f.Add(base.Add(d), 0, pcaptest.Ethernet(ip4))
	}
	path := filepath.Join(t.TempDir(), "long")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range PrescanFrames + 2 {
		var s Segment
		if err := r.Next(&s); err != nil {
			t.Fatal(err)
		}
		if want := i == PrescanFrames+1; s.FineTime != want {
			t.Fatalf("long file: frame %d FineTime = %v, want %v", i+1, s.FineTime, want)
		}
	}
}
