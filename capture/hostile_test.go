package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// readEverything reads r to its end and returns the segments and the error
// that ended it (io.EOF at a clean end).
func readEverything(r *Reader) ([]Segment, error) {
	var out []Segment
	var s Segment
	for {
		if err := r.Next(&s); err != nil {
			return out, err
		}
		out = append(out, s)
	}
}

// TestRecordBomb: a pcap whose snap length is 2^32−1 and whose second record
// really holds 64 MiB ends at frame 2 with a warning, allocating little: the
// record is never buffered.
func TestRecordBomb(t *testing.T) {
	var w bytes.Buffer
	if err := pcaptest.WriteBomb(&w, 64<<20); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		in   []byte
	}{{"plain", w.Bytes()}, {"gzip", gzipped(t, w.Bytes())}, {"zstd", zstded(t, w.Bytes())}} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := NewReader(bytes.NewReader(tt.in), "bomb.pcap")
			if err != nil {
				t.Fatal(err)
			}
			segs, err := readEverything(r)
			runtime.ReadMemStats(&after)
			if err != io.EOF || len(segs) != 1 {
				t.Fatalf("read %d segments, then %v; want 1, io.EOF", len(segs), err)
			}
			if w := r.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "bomb.pcap: frame 2: capture length exceeds snap length: 67108864 > 262144") {
				t.Errorf("Warnings() = %q", w)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
				t.Errorf("allocated %d bytes reading a 64 MiB record, want < 16 MiB", got)
			}
		})
	}
}

// ngBlocks returns the offsets of the blocks of a little-endian pcapng.
func ngBlocks(b []byte) []int {
	var offs []int
	for o := 0; o+12 <= len(b); o += int(binary.LittleEndian.Uint32(b[o+4:])) {
		offs = append(offs, o)
	}
	return offs
}

// TestPcapngDamage: a corrupt block length in the middle of a pcapng is
// reported as damage (not as a cut), and the frames after it are read.
func TestPcapngDamage(t *testing.T) {
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	for i := range 5 {
		p := seg4
		p.Seq += uint32(100 * i)
		ng.Add(t0.Add(time.Duration(i)*time.Millisecond), 0, pcaptest.Ethernet(p.IP()))
	}
	good := ng.Bytes()
	offs := ngBlocks(good) // SHB, IDB, 5 EPBs
	if len(offs) != 7 || offs[3] != 260 {
		t.Fatalf("blocks at %v, want 7, the fourth at byte 260", offs)
	}
	tests := []struct {
		name    string
		damage  func(b []byte)
		seqs    []uint32
		warning string
	}{
		{"length-too-big", func(b []byte) { putLE32(b[offs[3]+4:], 0x7ffffff0) }, []uint32{0, 200, 300, 400},
			"ng.pcapng: after frame 1: corrupt pcapng block at byte 260 (block type 0x00000006 with impossible length 2147483632); skipped 212 bytes to the next valid block"},
		{"length-off-by-4", func(b []byte) { putLE32(b[offs[3]+4:], binary.LittleEndian.Uint32(b[offs[3]+4:])+4) }, []uint32{0, 200, 300, 400},
			"ng.pcapng: after frame 1: corrupt pcapng block at byte 260 (block type 0x00000006: length 216 at its start but 6 at its end)"},
		{"caplen-over-block", func(b []byte) { putLE32(b[offs[4]+20:], 5000) }, []uint32{0, 100, 300, 400},
			"ng.pcapng: after frame 2: corrupt pcapng block at byte"},
		{"garbage-to-the-end", func(b []byte) {
			for i := offs[5]; i < len(b); i++ {
				b[i] = 0xee
			}
		}, []uint32{0, 100, 200}, "ng.pcapng: after frame 3: corrupt pcapng block at byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(good)
			tt.damage(b)
			r, err := NewReader(bytes.NewReader(b), "ng.pcapng")
			if err != nil {
				t.Fatal(err)
			}
			segs, err := readEverything(r)
			if err != io.EOF {
				t.Fatalf("Next = %v, want io.EOF", err)
			}
			var got []uint32
			for _, s := range segs {
				got = append(got, uint32(s.Seq)-uint32(seg4.Seq))
			}
			if !equalU32(got, tt.seqs) {
				t.Errorf("segments at relative seq %v, want %v", got, tt.seqs)
			}
			if w := r.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], tt.warning) || strings.Contains(w[0], "cut") {
				t.Errorf("Warnings() = %q, want one starting %q", w, tt.warning)
			}
		})
	}
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSharedHostile reads the regression files of ../shared/hostile.
func TestSharedHostile(t *testing.T) {
	dir := sharedtest.Dir(t, "hostile")
	t.Run("tput-ts-overflow-min", func(t *testing.T) {
		r, err := Open(filepath.Join(dir, "tput-ts-overflow-min.pcapng"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		segs, err := readEverything(r)
		if err != io.EOF || len(segs) != 1 {
			t.Fatalf("%d segments, %v; want 1, io.EOF", len(segs), err)
		}
		st := r.Stats()
		if st.TimeOutOfRange != 1 || st.Last < st.First {
			t.Errorf("TimeOutOfRange = %d, First %d, Last %d; want 1, Last ≥ First", st.TimeOutOfRange, st.First, st.Last)
		}
		if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "frame 2: timestamp 2262-04-11 23:47:17 is outside") {
			t.Errorf("Warnings() = %q", w)
		}
	})
	t.Run("tso-iptotal0-origlen-4G", func(t *testing.T) {
		r, err := Open(filepath.Join(dir, "tso-iptotal0-origlen-4G.pcap"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		segs, err := readEverything(r)
		if err != io.EOF || len(segs) != 3 {
			t.Fatalf("%d segments, %v; want 3, io.EOF", len(segs), err)
		}
		// 74-byte frame: Ethernet 14 + IPv4 20 + TCP 20 leaves 20 bytes.
		if s := segs[2]; s.PayloadLen != 20 || s.WireLen != 74 {
			t.Errorf("frame 3: PayloadLen, WireLen = %d, %d, want 20, 74", s.PayloadLen, s.WireLen)
		}
		if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "frame 3: original length 4294967295 is impossible (captured 74)") {
			t.Errorf("Warnings() = %q", w)
		}
	})
	t.Run("zstd-skippable-frame-first", func(t *testing.T) {
		r, err := Open(filepath.Join(dir, "zstd-skippable-frame-first.pcap.zst"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		segs, err := readEverything(r)
		if err != io.EOF || len(segs) != 39 {
			t.Fatalf("%d segments, %v; want 39, io.EOF", len(segs), err)
		}
	})
}

// TestGREUnsupported: frames of a GRE payload tcpviz cannot decode are
// counted and summarised in one warning.
func TestGREUnsupported(t *testing.T) {
	gre := append([]byte{0, 0, 0x82, 0}, make([]byte, 40)...) // GRE 0x8200 (Aruba 802.11)
	frame := pcaptest.Ethernet(cat(ipv4Hdr(47, len(gre)), gre))
	r, err := NewReader(bytes.NewReader(pcapOf(1, 0, frame, frame, frame)), "aruba.pcap")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readEverything(r); err != io.EOF {
		t.Fatal(err)
	}
	if st := r.Stats(); st.UnsupportedEncap != 3 {
		t.Errorf("UnsupportedEncap = %d, want 3", st.UnsupportedEncap)
	}
	if w := r.Warnings(); len(w) != 1 || w[0] != "aruba.pcap: 3 frames in GRE 0x8200 not decoded (unsupported tunnel payload)" {
		t.Errorf("Warnings() = %q", w)
	}
}

// TestFileShrinks truncates a capture while it is read through its memory
// mapping: the Reader returns an error naming the file and frame instead of
// the process dying of SIGBUS.
func TestFileShrinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no memory mapping on windows")
	}
	frame := pcaptest.Ethernet(seg4.IP())
	frames := make([][]byte, 20000) // 20000 × 194 bytes: ~3.9 MB
	for i := range frames {
		frames[i] = frame
	}
	path := filepath.Join(t.TempDir(), "ring.pcap")
	if err := os.WriteFile(path, pcapOf(1, 0, frames...), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var s Segment
	if err := r.Next(&s); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 8192); err != nil {
		t.Fatal(err)
	}
	_, err = readEverything(r)
	var fe *FrameError
	if !errors.As(err, &fe) || !errors.Is(err, ErrFileChanged) || fe.File != path || fe.Frame < 2 {
		t.Fatalf("Next = %v, want *FrameError{%s, frame ≥ 2} wrapping ErrFileChanged", err, path)
	}
}

// TestInterrupt: once the context given to SetInterrupt is done, Next stops
// with an error wrapping context.Canceled.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	SetInterrupt(ctx)
	defer SetInterrupt(nil)
	frame := pcaptest.Ethernet(seg4.IP())
	frames := make([][]byte, 3*checkEvery)
	for i := range frames {
		frames[i] = frame
	}
	r, err := NewReader(bytes.NewReader(pcapOf(1, 0, frames...)), "big.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var s Segment
	if err := r.Next(&s); err != nil {
		t.Fatal(err)
	}
	cancel()
	n, err := readEverything(r)
	if !errors.Is(err, context.Canceled) || len(n) >= checkEvery {
		t.Fatalf("read %d more segments, then %v; want < %d, context.Canceled", len(n), err, checkEvery)
	}
	if !strings.HasPrefix(err.Error(), "big.pcap: frame 1025: ") {
		t.Errorf("error %q does not name the file and frame", err)
	}
}

// TestIPLenOverWire: an IPv4 length field of 1500 in a 54-byte frame whose
// original length is 54 gives no payload, and one warning.
func TestIPLenOverWire(t *testing.T) {
	p := seg4
	p.PayloadLen = 0
	frame := pcaptest.Ethernet(p.IP())
	binary.BigEndian.PutUint16(frame[14+2:], 1500)
	segs, r := readAll(t, pcapOf(1, 0, frame))
	if len(segs) != 1 || segs[0].PayloadLen != 0 {
		t.Fatalf("segments %v, want one with no payload", segs)
	}
	if st := r.Stats(); st.IPLenOverWire != 1 {
		t.Errorf("IPLenOverWire = %d, want 1", st.IPLenOverWire)
	}
	if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "frame 1: the IP length field claims more bytes than the frame's original length") {
		t.Errorf("Warnings() = %q", w)
	}
}

// TestZstdDamage: like gzip, a zstd capture with a bad checksum or cut
// gives every frame that could be decoded and a warning; concatenated
// frames and skippable frames are read.
func TestZstdDamage(t *testing.T) {
	var frames [][]byte
	for i := range 5 {
		p := seg4
		p.Seq += uint32(100 * i)
		frames = append(frames, pcaptest.Ethernet(p.IP()))
	}
	pcap := pcapOf(pcaptest.LinkEthernet, 0, frames...)
	one := zstded(t, pcap)
	badSum := bytes.Clone(one)
	badSum[len(badSum)-1] ^= 0xff
	half := 24 + 2*(16+len(frames[0]))
	two := cat(zstded(t, pcap[:half]), zstded(t, pcap[half:]))
	skip := cat([]byte{0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4}, one)
	for _, tt := range []struct {
		name    string
		in      []byte
		segs    int
		warning string
	}{
		{"one-frame", one, 5, ""},
		{"bad-checksum", badSum, 5, "z.pcap: frame 6: zstd: frame checksum mismatch (frame 1)"},
		{"two-frames", two, 5, ""},
		{"two-frames-second-checksum-cut", two[:len(two)-3], 5, "z.pcap: frame 6: the zstd stream ends early (the compressed file is cut), mid-record"},
		{"two-frames-second-block-cut", two[:len(two)-20], 2, "z.pcap: frame 3: the zstd stream ends early (the compressed file is cut), mid-record"},
		{"skippable-first", skip, 5, ""},
		{"cut-in-checksum", one[:len(one)-2], 5, "z.pcap: frame 6: the zstd stream ends early (the compressed file is cut), mid-record"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tt.in), "z.pcap")
			if err != nil {
				t.Fatal(err)
			}
			segs, err := readEverything(r)
			if err != io.EOF || tt.segs >= 0 && len(segs) != tt.segs {
				t.Fatalf("%d segments, then %v; want %d, io.EOF", len(segs), err, tt.segs)
			}
			w := r.Warnings()
			if tt.warning == "" && len(w) > 0 || tt.warning != "" && (len(w) != 1 || !strings.HasPrefix(w[0], tt.warning)) {
				t.Errorf("Warnings() = %q, want %q", w, tt.warning)
			}
		})
	}
}

// TestPcapngBomb: a packet block claiming (and holding) 16 MiB between two
// valid frames is skipped as damage without being buffered; the frames on
// both sides are read.
func TestPcapngBomb(t *testing.T) {
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	for i := range 2 {
		p := seg4
		p.Seq += uint32(100 * i)
		ng.Add(t0.Add(time.Duration(i)*time.Millisecond), 0, pcaptest.Ethernet(p.IP()))
	}
	good := ng.Bytes()
	offs := ngBlocks(good) // SHB, IDB, EPB, EPB
	const n = 16 << 20
	hdr := make([]byte, 28)
	for i, v := range []uint32{ngEPB, n + 32, 0, 0, 0, n, n} {
		putLE32(hdr[4*i:], v)
	}
	tail := make([]byte, 4)
	putLE32(tail, n+32)
	in := cat(good[:offs[3]], hdr, make([]byte, n), tail, good[offs[3]:])
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := NewReader(bytes.NewReader(in), "bomb.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	segs, err := readEverything(r)
	runtime.ReadMemStats(&after)
	if err != io.EOF || len(segs) != 2 {
		t.Fatalf("%d segments, then %v; want 2, io.EOF", len(segs), err)
	}
	want := fmt.Sprintf("bomb.pcapng: after frame 1: corrupt pcapng block at byte %d (block type 0x00000006 with impossible length %d); skipped %d bytes to the next valid block", offs[3], n+32, n+32)
	if w := r.Warnings(); len(w) != 1 || w[0] != want {
		t.Errorf("Warnings() = %q, want %q", w, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("allocated %d bytes, want < 4 MiB", got)
	}
}
