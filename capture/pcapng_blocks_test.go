package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// ngConn returns the eight segments of a short connection (handshake, 100
// bytes, FINs) 10 ms apart from t0, as Ethernet frames.
func ngConn() [][]byte {
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.10:40000"), netip.MustParseAddrPort("198.51.100.20:80"), 100, 500)
	segs := c.Handshake(t0, 10*time.Millisecond)
	segs = append(segs, c.Data(t0, pcaptest.C2S, 100), c.Ack(t0, pcaptest.S2C, 101, 65535), c.Fin(t0, pcaptest.C2S), c.Fin(t0, pcaptest.S2C), c.Ack(t0, pcaptest.C2S, 2, 65535))
	var out [][]byte
	for _, s := range segs {
		out = append(out, pcaptest.Ethernet(s.IP()))
	}
	return out
}

// readNg reads every segment of the pcapng b (named ng.pcapng), through a
// stream, gzip and the file read in place, and checks that the three agree;
// it returns the stream's segments, Reader and final error.
func readNg(t *testing.T, b []byte) ([]Segment, *Reader, error) {
	t.Helper()
	read := func(r *Reader) ([]Segment, error) {
		var segs []Segment
		for {
			var s Segment
			if err := r.Next(&s); err != nil {
				return segs, err
			}
			segs = append(segs, s)
		}
	}
	r, err := NewReader(bytes.NewReader(b), "ng.pcapng")
	if err != nil {
		return nil, nil, err
	}
	segs, err := read(r)
	p := filepath.Join(t.TempDir(), "ng.pcapng")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	others := map[string]func() (*Reader, error){
		"gzip": func() (*Reader, error) { return NewReader(bytes.NewReader(gzipped(t, b)), "ng.pcapng") },
		"file": func() (*Reader, error) { return Open(p) },
	}
	for name, o := range others {
		r2, err2 := o()
		if err2 != nil {
			t.Fatalf("%s: %v", name, err2)
		}
		segs2, err2 := read(r2)
		r2.Close()
		if len(segs2) != len(segs) || strings.ReplaceAll(errText(err2), p, "ng.pcapng") != errText(err) || r2.Stats() != r.Stats() ||
			strings.ReplaceAll(strings.Join(r2.Warnings(), "\n"), p, "ng.pcapng") != strings.Join(r.Warnings(), "\n") {
			t.Fatalf("%s: %d segments, %v, %+v, %q; stream: %d, %v, %+v, %q", name, len(segs2), err2, r2.Stats(), r2.Warnings(), len(segs), err, r.Stats(), r.Warnings())
		}
		for i := range segs {
			if segs[i].Frame != segs2[i].Frame || segs[i].Time != segs2[i].Time {
				t.Fatalf("%s: segment %d: frame %d at %d; stream: %d at %d", name, i, segs2[i].Frame, segs2[i].Time, segs[i].Frame, segs[i].Time)
			}
		}
	}
	return segs, r, err
}

func errText(err error) string {
	if err == nil || err == io.EOF {
		return ""
	}
	return err.Error()
}

func u32le(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// TestSimplePacketBlocks: a Simple Packet Block (no timestamp, interface
// 0) is a frame like any other — it was dropped with "timestamp
// 0001-01-01 00:00:00 is outside the range" and, being the SYN-ACK, left
// the connection without its handshake. It is given the time of the
// latest frame before it that has one, and one warning says so. Custom
// blocks are numbered as frames, as tshark numbers them; name resolution
// and statistics blocks are not (the file is the tester's
// ng_odd_blocks.pcapng, rebuilt: tshark numbers its SYN 3, the SPB 4).
func TestSimplePacketBlocks(t *testing.T) {
	fr := ngConn()
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	f.AddInterface(pcaptest.LinkEthernet, 0, 0, 0)
	f.AddBlock(0x00000bad, []byte("abcd"))                // custom block: frame 1
	f.AddBlock(0x40000bad, append(u32le(0), "custom"...)) // custom block, not copiable: frame 2
	f.AddBlock(4, u32le(0))                               // name resolution: no frame
	f.Add(t0, 0, fr[0])                                   // SYN: frame 3
	f.AddBlock(5, u32le(0, 0, 0))                         // interface statistics: no frame
	f.AddSimple(fr[1])                                    // SYN-ACK: frame 4, no time
	for i, b := range fr[2:] {
		f.Add(t0.Add(time.Duration(i+1)*time.Second), 0, b) // frames 5-10
	}
	f.AddSimple(fr[7]) // frame 11: the last ACK again, no time
	segs, r, err := readNg(t, f.Bytes())
	if err != io.EOF {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
	if len(segs) != 9 {
		t.Fatalf("%d segments, want 9", len(segs))
	}
	t0us := Timestamp(t0.Truncate(time.Microsecond).UnixNano())
	wantFrame := []int64{3, 4, 5, 6, 7, 8, 9, 10, 11}
	wantTime := []Timestamp{t0us, t0us, t0us + 1e9, t0us + 2e9, t0us + 3e9, t0us + 4e9, t0us + 5e9, t0us + 6e9, t0us + 6e9}
	for i, s := range segs {
		if s.Frame != wantFrame[i] || s.Time != wantTime[i] || s.Iface != 0 {
			t.Errorf("segment %d: frame %d at %d on interface %d, want frame %d at %d on 0", i, s.Frame, s.Time, s.Iface, wantFrame[i], wantTime[i])
		}
	}
	if segs[1].Flags != SYN|ACK || segs[1].CapLen != len(fr[1]) || segs[1].WireLen != len(fr[1]) {
		t.Errorf("the Simple Packet Block: flags %v, %d/%d bytes, want the SYN-ACK of %d", segs[1].Flags, segs[1].CapLen, segs[1].WireLen, len(fr[1]))
	}
	st := r.Stats()
	if st.Frames != 11 || st.Segments != 9 || st.NonIP != 2 || st.SimplePackets != 2 || st.TimeOutOfRange != 0 || st.First != t0us {
		t.Errorf("Stats %+v: want 11 frames, 9 segments, 2 non-IP, 2 simple packets, none out of range, First %d", st, t0us)
	}
	want := "ng.pcapng: 2 frames are pcapng Simple Packet Blocks (the first is frame 4), which carry no timestamp; each is given the time of the latest frame before it that has one: RTT samples, durations and rates that involve them are unreliable"
	if w := r.Warnings(); len(w) != 1 || w[0] != want {
		t.Errorf("Warnings() = %q, want [%q]", w, want)
	}
}

// TestSimplePacketBlocksFirst: Simple Packet Blocks before any frame with
// a timestamp get the time of the first frame after them that has one; a
// capture of Simple Packet Blocks only, time 0; one warning says which.
func TestSimplePacketBlocksFirst(t *testing.T) {
	fr := ngConn()
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	f.AddSimple(fr[0])
	f.AddSimple(fr[1])
	f.Add(t0, 0, fr[2])
	f.AddSimple(fr[3])
	segs, r, err := readNg(t, f.Bytes())
	t0us := Timestamp(t0.Truncate(time.Microsecond).UnixNano())
	if err != io.EOF || len(segs) != 4 {
		t.Fatalf("%d segments, %v; want 4, io.EOF", len(segs), err)
	}
	for i, s := range segs {
		if s.Frame != int64(i+1) || s.Time != t0us {
			t.Errorf("segment %d: frame %d at %d, want %d at %d", i, s.Frame, s.Time, i+1, t0us)
		}
	}
	want := "ng.pcapng: 3 frames are pcapng Simple Packet Blocks (the first is frame 1), which carry no timestamp; given: 1 the time of the latest frame before it that has one; 2 the time of the first frame after it that has one (no frame before it has one): RTT samples, durations and rates that involve them are unreliable"
	if w := r.Warnings(); len(w) != 1 || w[0] != want || r.Stats().First != t0us {
		t.Errorf("Warnings() = %q, First %d; want [%q], %d", w, r.Stats().First, want, t0us)
	}

	only := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	for _, b := range fr[:3] {
		only.AddSimple(b)
	}
	segs, r, err = readNg(t, only.Bytes())
	if err != io.EOF || len(segs) != 3 || segs[0].Time != 0 || segs[2].Time != 0 {
		t.Fatalf("only Simple Packet Blocks: %d segments, %v, times %v; want 3 at time 0", len(segs), err, segs)
	}
	want = "ng.pcapng: 3 frames are pcapng Simple Packet Blocks (the first is frame 1), which carry no timestamp; each is given time 0, 1970-01-01 00:00:00 (no frame before it, nor within 4096 frames after it, has one): RTT samples, durations and rates that involve them are unreliable"
	if w := r.Warnings(); len(w) != 1 || w[0] != want {
		t.Errorf("Warnings() = %q, want [%q]", w, want)
	}
}

// TestPcapngMalformedBlocks: a malformed block is reported as what it is
// — the block type, its offset, the option — never as a cut capture (an
// interface description block whose option ran past its end read as
// "capture cut inside the first frame"). A packet block that cannot be
// read is skipped and the frames after it read; an interface description
// block that cannot be read stops the reading (every later timestamp
// depends on it); packet and section options that cannot be read are
// ignored.
func TestPcapngMalformedBlocks(t *testing.T) {
	fr := ngConn()
	ng := func(build func(f *pcaptest.File)) []byte {
		f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
		build(f)
		return f.Bytes()
	}
	// idb is an Ethernet interface description block body whose
	// option 9 (if_tsresol, 1 byte) claims n bytes.
	idb := func(n uint16, res byte) []byte {
		b := append(u32le(1, 0xffff), 9, 0, byte(n), byte(n>>8), res, 0, 0, 0)
		b[2], b[3] = 0, 0 // reserved
		return append(b, 0, 0, 0, 0)
	}
	epb := func(ts time.Time, frame []byte, opts []byte) []byte {
		us := uint64(ts.UnixMicro())
		b := u32le(0, uint32(us>>32), uint32(us), uint32(len(frame)), uint32(len(frame)))
		b = append(b, frame...)
		b = append(b, make([]byte, -len(frame)&3)...)
		return append(b, opts...)
	}
	tests := []struct {
		name    string
		in      []byte
		segs    int
		warning string // the one warning ("" none)
		err     string // the error (a *FrameError), "" for io.EOF
	}{
		{"idb-option-overrun-first", ng(func(f *pcaptest.File) {
			f.AddBlock(1, idb(200, 6))
			for _, b := range fr {
				f.Add(t0, 0, b)
			}
		}), 0, "", "ng.pcapng: corrupt pcapng block at byte 28 (interface description block: option 9 (if_tsresol) at byte 16 of the block claims a 200-byte value, but 8 bytes are left before the block's end); nothing before it to analyse"},
		{"idb-option-overrun-later", ng(func(f *pcaptest.File) {
			f.Add(t0, 0, fr[0])
			f.Add(t0, 0, fr[1])
			f.AddBlock(1, idb(200, 6))
			f.Add(t0, 0, fr[2])
		}), 2, "ng.pcapng: after frame 2: corrupt pcapng block at byte 224 (interface description block: option 9 (if_tsresol) at byte 16 of the block claims a 200-byte value, but 8 bytes are left before the block's end); reading stopped there: analysed the 2 frames before it", ""},
		{"idb-tsresol-impossible", ng(func(f *pcaptest.File) {
			f.AddBlock(1, idb(1, 0x80|70))
			f.Add(t0, 0, fr[0])
		}), 0, "", "ng.pcapng: corrupt pcapng block at byte 28 (interface description block: option 9 (if_tsresol) of 2^-70 s, finer than a 64-bit count of ticks can hold); nothing before it to analyse"},
		{"epb-option-overrun", ng(func(f *pcaptest.File) {
			f.Add(t0, 0, fr[0])
			f.AddBlock(6, epb(t0, fr[1], []byte{1, 0, 100, 0, 'x', 'y', 'z', 0}))
			f.Add(t0, 0, fr[2])
		}), 3, "ng.pcapng: frame 2: enhanced packet block at byte 136: option 1 (opt_comment) at byte 84 of the block claims a 100-byte value, but 4 bytes are left before the block's end; its options ignored (the packet is read)", ""},
		{"epb-before-idb", func() []byte {
			f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
			f.AddBlock(6, epb(t0, fr[0], nil))
			f.AddInterface(pcaptest.LinkEthernet, 0, 0, 0)
			for _, b := range fr {
				f.Add(t0, 0, b)
			}
			return f.Bytes()
		}(), 8, "ng.pcapng: before the first frame: corrupt pcapng block at byte 28 (enhanced packet block before any interface description block of its section); the block (88 bytes) skipped", ""},
		{"spb-before-idb", func() []byte {
			f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
			f.AddBlock(3, append(u32le(uint32(len(fr[0]))), fr[0]...))
			f.AddInterface(pcaptest.LinkEthernet, 0, 0, 0)
			f.Add(t0, 0, fr[1])
			return f.Bytes()
		}(), 1, "ng.pcapng: before the first frame: corrupt pcapng block at byte 28 (simple packet block before any interface description block of its section); the block (72 bytes) skipped", ""},
		{"spb-longer-than-block", ng(func(f *pcaptest.File) {
			f.Add(t0, 0, fr[0])
			f.AddBlock(3, append(u32le(1000), fr[1]...))
			f.Add(t0, 0, fr[2])
		}), 2, "ng.pcapng: after frame 1: corrupt pcapng block at byte 136 (simple packet block of 72 bytes claims 1000 packet bytes); the block (72 bytes) skipped", ""},
		{"shb-version-2-first", func() []byte {
			b := ng(func(f *pcaptest.File) { f.Add(t0, 0, fr[0]) })
			binary.LittleEndian.PutUint16(b[12:], 2)
			return b
		}(), 0, "", "ng.pcapng: unsupported pcapng block at byte 0 (section header block of pcapng version 2.0; tcpviz reads version 1)"},
		{"shb-version-2-later", func() []byte {
			one := ng(func(f *pcaptest.File) { f.Add(t0, 0, fr[0]) })
			two := bytes.Clone(one)
			binary.LittleEndian.PutUint16(two[12:], 2)
			return cat(one, two, one)
		}(), 2, "ng.pcapng: after frame 1: pcapng section at byte 136 has version 2.0, which tcpviz cannot read: skipped it (136 bytes, 1 packet blocks) to the next section header, at byte 272", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			segs, r, err := readNg(t, tt.in)
			if tt.err != "" {
				var fe *FrameError
				if err == nil || !errors.As(err, &fe) || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != io.EOF {
				t.Fatalf("Next = %v, want io.EOF", err)
			}
			if len(segs) != tt.segs {
				t.Errorf("%d segments, want %d", len(segs), tt.segs)
			}
			for i, s := range segs {
				if s.Frame != int64(i+1) {
					t.Errorf("segment %d is frame %d", i, s.Frame)
				}
			}
			w := r.Warnings()
			if tt.warning == "" && len(w) > 0 || tt.warning != "" && (len(w) != 1 || w[0] != tt.warning) {
				t.Errorf("Warnings() = %q, want [%q]", w, tt.warning)
			}
			for _, x := range w {
				if strings.Contains(x, "cut") {
					t.Errorf("warning %q calls damage a cut", x)
				}
			}
		})
	}
}

// TestPcapngRecordOverCap: a pcapng packet block holding more than
// MaxRecordLen captured bytes (but under the block cap, so not damage)
// stops the reading as a pcap record over the cap does: an error at frame
// 1, else a warning with the frames before it analysed (it was an error,
// exit 2, at any frame).
func TestPcapngRecordOverCap(t *testing.T) {
	fr := ngConn()
	big := append(bytes.Clone(fr[3]), make([]byte, MaxRecordLen)...)
	for _, tt := range []struct {
		name   string
		frames [][]byte
		segs   int
		want   string
	}{
		{"after-frame-1", [][]byte{fr[0], big, fr[2]}, 1, "ng.pcapng: frame 2: record longer than the capture allows: 262298 captured bytes, at most 262144; analysed the 1 frames before it"},
		{"frame-1", [][]byte{big, fr[0]}, 0, "ng.pcapng: frame 1: record longer than the capture allows: 262298 captured bytes, at most 262144"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
			f.AddInterface(pcaptest.LinkEthernet, 0, 0, pcaptest.NoSnaplen)
			for _, b := range tt.frames {
				f.Add(t0, 0, b)
			}
			segs, r, err := readNg(t, f.Bytes())
			if tt.segs == 0 {
				if err == nil || err.Error() != tt.want || !errors.Is(err, ErrRecordTooLong) {
					t.Fatalf("error %v, want %q", err, tt.want)
				}
				return
			}
			if err != io.EOF || len(segs) != tt.segs {
				t.Fatalf("%d segments, %v; want %d, io.EOF", len(segs), err, tt.segs)
			}
			if w := r.Warnings(); len(w) != 1 || w[0] != tt.want {
				t.Errorf("Warnings() = %q, want [%q]", w, tt.want)
			}
		})
	}
}
