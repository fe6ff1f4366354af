package capture

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/seq"
)

// threeSegs returns three Ethernet frames of seg4 with seq 1000000,
// 1000100 and 1000200.
func threeSegs() [][]byte {
	var out [][]byte
	for i := range 3 {
		p := seg4
		p.Seq += uint32(100 * i)
		out = append(out, pcaptest.Ethernet(p.IP()))
	}
	return out
}

// frameTimes are the capture times of threeSegs in the format tests:
// t0, t0 + 1.5 ms + 1 ns, and 2 s + 999 ns later.
var frameTimes = []time.Time{t0, t0.Add(1500*time.Microsecond + time.Nanosecond), t0.Add(2*time.Second + 999)}

func TestFormats(t *testing.T) {
	tests := []struct {
		name   string
		opts   pcaptest.Options
		format Format
		want   []Timestamp
	}{
		// µs files keep 1709294400.123456 s.
		{"pcap-us-le", pcaptest.Options{Format: pcaptest.PcapMicro}, FormatPcap,
			[]Timestamp{1709294400_123456000, 1709294400_124956000, 1709294402_123457000}},
		{"pcap-us-be", pcaptest.Options{Format: pcaptest.PcapMicro, BigEndian: true}, FormatPcap,
			[]Timestamp{1709294400_123456000, 1709294400_124956000, 1709294402_123457000}},
		{"pcap-ns-le", pcaptest.Options{Format: pcaptest.PcapNano}, FormatPcap,
			[]Timestamp{1709294400_123456789, 1709294400_124956790, 1709294402_123457788}},
		{"pcap-ns-be", pcaptest.Options{Format: pcaptest.PcapNano, BigEndian: true}, FormatPcap,
			[]Timestamp{1709294400_123456789, 1709294400_124956790, 1709294402_123457788}},
		{"pcapng-le", pcaptest.Options{Format: pcaptest.Pcapng}, FormatPcapng,
			[]Timestamp{1709294400_123456000, 1709294400_124956000, 1709294402_123457000}},
		{"pcapng-be", pcaptest.Options{Format: pcaptest.Pcapng, BigEndian: true}, FormatPcapng,
			[]Timestamp{1709294400_123456000, 1709294400_124956000, 1709294402_123457000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.LinkType = pcaptest.LinkEthernet
			f := pcaptest.New(tt.opts)
			for i, fr := range threeSegs() {
				f.Add(frameTimes[i], 0, fr)
			}
			segs, r := readAll(t, f.Bytes())
			if r.Format() != tt.format {
				t.Errorf("Format() = %q, want %q", r.Format(), tt.format)
			}
			if r.Name() != "test.pcap" {
				t.Errorf("Name() = %q, want %q", r.Name(), "test.pcap")
			}
			if len(segs) != 3 {
				t.Fatalf("got %d segments, want 3", len(segs))
			}
			for i, s := range segs {
				want := want4
				want.Frame, want.Time = int64(i+1), tt.want[i]
				want.CapLen, want.WireLen = 178, 178
				want.Seq += seq.Num(100 * i)
				checkSeg(t, s, want)
			}
			st := r.Stats()
			if st.First != tt.want[0] || st.Last != tt.want[2] {
				t.Errorf("Stats First, Last = %d, %d, want %d, %d", st.First, st.Last, tt.want[0], tt.want[2])
			}
		})
	}
}

// TestPcapngInterfaces reads a pcapng whose interfaces differ in link type,
// if_tsresol and if_tsoffset.
func TestPcapngInterfaces(t *testing.T) {
	base := time.Unix(1709294400, 0).UTC()
	type iface struct {
		lt       uint32
		tsresol  byte
		tsoffset int64
		frame    []byte
	}
	ifaces := []iface{
		{pcaptest.LinkEthernet, 9, 0, pcaptest.Ethernet(ip4)},                                // 0: ns
		{pcaptest.LinkRaw, 0x80 | 9, 1_700_000_000, pcaptest.Raw(ip6)},                       // 1: 2^-9 s = 1953125 ns
		{pcaptest.LinkLinuxSLL2, 0, -3600, pcaptest.LinuxSLL2(ip4, 2)},                       // 2: µs (default)
		{pcaptest.LinkNull, 0x80 | 20, 0, pcaptest.Null(ip6, 0, false)},                      // 3: 2^-20 s
		{147, 9, 0, []byte{1, 2, 3, 4}},                                                      // 4: LINKTYPE_USER0: unsupported
		{pcaptest.LinkPPP, 3, 86400, pcaptest.PPP(ip4)},                                      // 5: ms
		{pcaptest.LinkIEEE80211, 0x80 | 24, 0, pcaptest.Dot11{}.Frame(ip4)},                  // 6: 2^-24 s
		{pcaptest.LinkRadiotap, 10, 0, pcaptest.Radiotap(pcaptest.Dot11{}.Frame(ip6), true)}, // 7: 10^-10 s
	}
	pkts := []struct {
		iface int
		ts    time.Time
		want  Timestamp
	}{
		{0, base.Add(123456789), 1709294400_123456789},
		{1, base.Add(3 * 1953125), 1709294400_005859375},
		{2, base.Add(999_999_999), 1709294400_999999000},
		{3, base.Add(500 * time.Millisecond), 1709294400_500000000},
		{3, base.Add(375 * time.Millisecond), 1709294400_375000000},
		// 0.1 s is floor(0.1 × 2^20) = 104857 ticks = 104857e9 / 2^20 = 99999427.5… ns.
		{3, base.Add(100 * time.Millisecond), 1709294400_099999427},
		{4, base.Add(time.Second), 1709294401_000000000},
		{5, base.Add(2*time.Second + 7654321), 1709294402_007000000},
		// 2^-24 s = 59.6… ns: 0.25 s is exact, 1 ns past it is the same tick.
		{6, base.Add(250*time.Millisecond + 1), 1709294400_250000000},
		{7, base.Add(3*time.Second + 5), 1709294403_000000005},
		{0, base.Add(4 * time.Second), 1709294404_000000000},
	}
	for _, be := range []bool{false, true} {
		name := "le"
		if be {
			name = "be"
		}
		t.Run(name, func(t *testing.T) {
			f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, BigEndian: be})
			for _, ifc := range ifaces {
				f.AddInterface(ifc.lt, ifc.tsresol, ifc.tsoffset, 0)
			}
			for _, p := range pkts {
				f.Add(p.ts, p.iface, ifaces[p.iface].frame)
			}
			segs, r := readAll(t, f.Bytes())
			var want []Segment
			for i, p := range pkts {
				if p.iface == 4 {
					continue
				}
				w := want4
				if bytes.Contains(ifaces[p.iface].frame, ip6) {
					w = want6
				}
				if p.iface >= 6 {
					w.WiFi, w.TA, w.RA = true, pcaptest.DefaultSrcMAC, pcaptest.DefaultDstMAC
					w.RadioSignal = ifaces[p.iface].lt == pcaptest.LinkRadiotap
				}
				w.Frame, w.Time, w.Iface = int64(i+1), p.want, p.iface
				w.CapLen, w.WireLen = len(ifaces[p.iface].frame), len(ifaces[p.iface].frame)
				want = append(want, w)
			}
			if len(segs) != len(want) {
				t.Fatalf("got %d segments, want %d", len(segs), len(want))
			}
			for i := range segs {
				t.Run("frame-"+strconv.FormatInt(want[i].Frame, 10), func(t *testing.T) { checkSeg(t, segs[i], want[i]) })
			}
			st := r.Stats()
			if st.Frames != int64(len(pkts)) || st.Segments != int64(len(want)) || st.UnsupportedLink != 1 {
				t.Errorf("Stats Frames, Segments, UnsupportedLink = %d, %d, %d, want %d, %d, 1",
					st.Frames, st.Segments, st.UnsupportedLink, len(pkts), len(want))
			}
			if r.Format() != FormatPcapng {
				t.Errorf("Format() = %q, want %q", r.Format(), FormatPcapng)
			}
		})
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstded(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCompressedAndStreams reads gzip and zstd captures, and captures from
// readers that are not files and return few bytes per Read.
func TestCompressedAndStreams(t *testing.T) {
	pcap := pcapOf(pcaptest.LinkEthernet, 0, threeSegs()...)
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	for i, fr := range threeSegs() {
		ng.Add(t0.Add(time.Duration(i)*time.Millisecond), 0, fr)
	}
	split := func(b []byte) io.Reader { // two readers glued: not a file, no Seek, no Stat
		return io.MultiReader(bytes.NewReader(b[:len(b)/3]), bytes.NewReader(b[len(b)/3:]))
	}
	tests := []struct {
		name   string
		in     io.Reader
		format Format
		times  []Timestamp
	}{
		{"plain-multireader", split(pcap), FormatPcap, nil},
		{"plain-onebyte", iotest.OneByteReader(bytes.NewReader(pcap)), FormatPcap, nil},
		{"gzip-pcap", split(gzipped(t, pcap)), FormatPcap, nil},
		{"gzip-pcap-onebyte", iotest.OneByteReader(bytes.NewReader(gzipped(t, pcap))), FormatPcap, nil},
		{"zstd-pcap", split(zstded(t, pcap)), FormatPcap, nil},
		{"gzip-pcapng", split(gzipped(t, ng.Bytes())), FormatPcapng, []Timestamp{t0ns - 789, t0ns - 789 + 1e6, t0ns - 789 + 2e6}},
		{"zstd-pcapng", iotest.HalfReader(bytes.NewReader(zstded(t, ng.Bytes()))), FormatPcapng, []Timestamp{t0ns - 789, t0ns - 789 + 1e6, t0ns - 789 + 2e6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(tt.in, "stream")
			if err != nil {
				t.Fatalf("NewReader = %v, want nil", err)
			}
			if r.Format() != tt.format {
				t.Errorf("Format() = %q, want %q", r.Format(), tt.format)
			}
			times := tt.times
			if times == nil {
				times = []Timestamp{t0ns, t0ns + 1e6, t0ns + 2e6}
			}
			var s Segment
			for i := range 3 {
				if err := r.Next(&s); err != nil {
					t.Fatalf("Next #%d = %v, want nil", i+1, err)
				}
				if s.Frame != int64(i+1) || s.Time != times[i] || s.Seq != seq.Num(1000000+100*i) {
					t.Errorf("segment %d: Frame, Time, Seq = %d, %d, %d, want %d, %d, %d",
						i+1, s.Frame, s.Time, s.Seq, i+1, times[i], 1000000+100*i)
				}
			}
			if err := r.Next(&s); err != io.EOF {
				t.Errorf("Next at end = %v, want io.EOF", err)
			}
			if w := r.Warnings(); len(w) != 0 {
				t.Errorf("Warnings() = %q, want none", w)
			}
		})
	}
}

// TestOpen reads a capture from a file (the memory-mapped path).
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"plain.pcap", pcapOf(pcaptest.LinkEthernet, 0, threeSegs()...)},
		{"packed.pcap.gz", gzipped(t, pcapOf(pcaptest.LinkEthernet, 0, threeSegs()...))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatalf("Open(%q) = %v, want nil", path, err)
			}
			defer r.Close()
			if r.Name() != path {
				t.Errorf("Name() = %q, want %q", r.Name(), path)
			}
			var s Segment
			n := 0
			for r.Next(&s) == nil {
				n++
			}
			if n != 3 {
				t.Errorf("read %d segments, want 3", n)
			}
			if err := r.Close(); err != nil {
				t.Errorf("Close() = %v, want nil", err)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		if _, err := Open(filepath.Join(dir, "nope.pcap")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Open(missing) = %v, want os.ErrNotExist", err)
		}
	})
	t.Run("not-a-capture", func(t *testing.T) {
		path := filepath.Join(dir, "text.pcap")
		if err := os.WriteFile(path, []byte("hello, world\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path)
		var fe *FrameError
		if !errors.As(err, &fe) || fe.File != path || fe.Frame != 0 || !errors.Is(err, ErrNotCapture) {
			t.Errorf("Open(text) = %v, want *FrameError{File: %q, Frame: 0} wrapping ErrNotCapture", err, path)
		}
	})
}

// TestNewReaderErrors checks the errors for inputs that are not readable
// captures: all are *FrameError with Frame 0 and the name.
func TestNewReaderErrors(t *testing.T) {
	pcapHdr := pcapOf(pcaptest.LinkEthernet, 0)
	ngHdr := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	ngHdr.AddInterface(pcaptest.LinkEthernet, 9, 0, 0)
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	random[0] = 0x42 // not a gzip, zstd, pcap or pcapng magic
	badVersion := bytes.Clone(pcapHdr)
	badVersion[4] = 3
	tests := []struct {
		name string
		in   []byte
		is   error // nil: any *FrameError
		msg  string
	}{
		{"empty", nil, ErrNotCapture, "in.cap: "},
		{"three-bytes", []byte{0xd4, 0xc3, 0xb2}, ErrNotCapture, "in.cap: "},
		{"random", random, ErrNotCapture, "in.cap: "},
		{"text", []byte("GET / HTTP/1.1\r\n\r\n"), ErrNotCapture, "magic 47 45 54 20"},
		{"pcap-header-cut", pcapHdr[:12], nil, "pcap header: file ends inside the header"},
		{"pcap-bad-version", badVersion, nil, "pcap header"},
		{"pcapng-header-cut", ngHdr.Bytes()[:20], nil, "pcapng header"},
		{"pcap-link-user0", pcapOf(147, 0), ErrUnsupportedLinkType, "unsupported link type 147"},
		{"pcap-link-user0-gzip", gzipped(t, pcapOf(147, 0)), ErrUnsupportedLinkType, "147"},
		{"gzip-garbage", []byte{0x1f, 0x8b, 0xff, 0xff, 0, 0, 0, 0, 0, 0}, nil, "gzip"},
		{"gzip-of-text", gzipped(t, []byte("not a capture")), ErrNotCapture, ""},
		{"gzip-of-nothing", gzipped(t, nil), ErrNotCapture, ""},
		{"zstd-of-text", zstded(t, []byte("not a capture")), ErrNotCapture, ""},
		{"zstd-garbage", []byte{0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff, 0xff}, nil, "in.cap: decompress: "},
		{"gzip-cut", gzipped(t, pcapHdr)[:10], nil, "in.cap: decompress: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tt.in), "in.cap")
			if err == nil {
				t.Fatalf("NewReader = %v, nil error; want an error", r)
			}
			var fe *FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("NewReader error = %T %v, want *FrameError", err, err)
			}
			if fe.File != "in.cap" || fe.Frame != 0 {
				t.Errorf("FrameError File, Frame = %q, %d, want %q, 0", fe.File, fe.Frame, "in.cap")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("NewReader error = %v, want errors.Is %v", err, tt.is)
			}
			if tt.is == nil && (errors.Is(err, ErrNotCapture) || errors.Is(err, ErrUnsupportedLinkType)) {
				t.Errorf("NewReader error = %v, want neither ErrNotCapture nor ErrUnsupportedLinkType", err)
			}
			if !strings.HasPrefix(err.Error(), "in.cap: ") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("NewReader error = %q, want prefix %q and %q", err, "in.cap: ", tt.msg)
			}
		})
	}
}

// TestEmptyCaptures checks that captures with no frames end at once.
func TestEmptyCaptures(t *testing.T) {
	ngIface := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	ngIface.AddInterface(pcaptest.LinkEthernet, 0, 0, 0)
	for _, tt := range []struct {
		name   string
		in     []byte
		format Format
	}{
		{"pcap", pcapOf(pcaptest.LinkEthernet, 0), FormatPcap},
		{"pcapng-shb-only", pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng}).Bytes(), FormatPcapng},
		{"pcapng-no-packets", ngIface.Bytes(), FormatPcapng},
	} {
		t.Run(tt.name, func(t *testing.T) {
			segs, r := readAll(t, tt.in)
			if len(segs) != 0 || r.Stats() != (Stats{}) || r.Format() != tt.format {
				t.Errorf("segments, Stats, Format = %d, %+v, %q, want 0, zero, %q", len(segs), r.Stats(), r.Format(), tt.format)
			}
			var s Segment
			if err := r.Next(&s); err != io.EOF {
				t.Errorf("Next after end = %v, want io.EOF", err)
			}
		})
	}
}

// pcapRecord returns a little-endian pcap record header with the given
// lengths, at 1709294410 s.
func pcapRecord(caplen, origlen uint32) []byte {
	b := make([]byte, 16)
	putLE32(b[0:], 1709294410)
	putLE32(b[8:], caplen)
	putLE32(b[12:], origlen)
	return b
}

func putLE32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// badIface returns a copy of the little-endian pcapng ng (SHB, one IDB
// without options, Enhanced Packet Blocks) whose packet block i names
// interface 7, which does not exist.
func badIface(ng []byte, i int) []byte {
	b := bytes.Clone(ng)
	off := 28 + 20 // SHB, IDB
	for range i {
		off += int(b[off+4]) | int(b[off+5])<<8
	}
	putLE32(b[off+8:], 7)
	return b
}

// TestDamagedCaptures checks captures damaged after the header: frames before
// the damage are returned, then io.EOF with a warning naming the file and
// frame, or a *FrameError naming frame 1 when nothing could be read.
func TestDamagedCaptures(t *testing.T) {
	good := pcapOf(pcaptest.LinkEthernet, 0, threeSegs()...) // 24 + 3 × (16 + 178) bytes
	hdr := pcapOf(pcaptest.LinkEthernet, 0)
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	for _, fr := range threeSegs() {
		ng.Add(t0, 0, fr)
	}
	ngUnsup := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	ngUnsup.AddInterface(147, 0, 0, 0)
	ngUnsup.AddInterface(148, 9, 0, 0)
	ngUnsup.Add(t0, 0, []byte{1, 2, 3})
	ngUnsup.Add(t0, 1, []byte{4, 5, 6})
	ngIDB := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	ngIDB.AddInterface(pcaptest.LinkEthernet, 9, 0, 0)
	ngIDBCut := ngIDB.Bytes()[:len(ngIDB.Bytes())-6]
	gz := gzipped(t, good)
	var many [][]byte // 1000 frames, 194 kB: more than one 128 kB zstd block
	for range 1000 {
		many = append(many, threeSegs()[0])
	}
	zst := zstded(t, pcapOf(pcaptest.LinkEthernet, 0, many...))
	badCRC := bytes.Clone(gz)
	badCRC[len(badCRC)-8] ^= 0xff // gzip trailer: CRC-32, then ISIZE

	tests := []struct {
		name     string
		in       []byte
		segs     int    // segments returned before the end
		warning  string // "" means none
		frameErr int64  // > 0: Next ends with a *FrameError for this frame
		is       error
	}{
		{"pcap-cut-in-data", good[:len(good)-10], 2, "cut.pcap: frame 3: capture cut mid-record; analysed the 2 frames before it", 0, nil},
		{"pcap-cut-in-record-header", good[:24+2*194+8], 2, "cut.pcap: frame 3: capture cut mid-record", 0, nil},
		{"pcap-cut-after-record-header", good[:24+2*194+16], 2, "cut.pcap: frame 3: capture cut mid-record", 0, nil},
		{"pcap-absurd-caplen", cat(good, pcapRecord(0x7ffffff0, 0x7ffffff0), []byte{1, 2, 3}), 3, "cut.pcap: frame 4: capture length exceeds snap length", 0, nil},
		// An original length below the captured length is bounded, not
		// the end of the capture: every frame is read.
		{"pcap-caplen-over-origlen", cat(good[:24+194], pcapRecord(178, 60), good[24+194+16:]), 3, "cut.pcap: frame 2: its record gives 178 captured bytes but an original length of 60; read with the captured length as its original length", 0, nil},
		{"pcapng-cut-in-block", ng.Bytes()[:len(ng.Bytes())-30], 2, "cut.pcap: frame 3: capture cut mid-record", 0, nil},
		{"gzip-cut", gz[:len(gz)-12], -1, "cut.pcap: frame ", 0, nil},
		{"gzip-bad-crc", badCRC, 3, "cut.pcap: frame 4: gzip: invalid checksum", 0, nil},
		{"zstd-cut", zst[:len(zst)*3/4], -1, "cut.pcap: frame ", 0, nil},
		{"pcap-frame-1-absurd-caplen", cat(hdr, pcapRecord(0xfffffff0, 0xfffffff0)), 0, "", 1, nil},
		{"pcapng-every-interface-unsupported", ngUnsup.Bytes(), 0, "", 1, ErrUnsupportedLinkType},
		// A packet block naming an interface its section lacks is damage:
		// skipped, and the frames after it read (it used to end the
		// capture, or fail it at frame 1).
		{"pcapng-bad-interface-id", badIface(ng.Bytes(), 2), 2, "cut.pcap: after frame 2: corrupt pcapng block at byte 472 (enhanced packet block names interface 7, but its section describes only interface 0); the block (212 bytes) skipped", 0, nil},
		{"pcapng-frame-1-bad-interface-id", badIface(ng.Bytes(), 0), 2, "cut.pcap: before the first frame: corrupt pcapng block at byte 48 (enhanced packet block names interface 7, but its section describes only interface 0); the block (212 bytes) skipped", 0, nil},
		// Cut inside the first frame: nothing to analyse, an error (exit 2).
		{"pcapng-idb-cut", ngIDBCut, 0, "", 1, nil},
		{"pcap-frame-1-cut", cat(hdr, pcapRecord(60, 60), make([]byte, 30)), 0, "", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tt.in), "cut.pcap")
			if err != nil {
				t.Fatalf("NewReader = %v, want nil", err)
			}
			var s Segment
			n := 0
			for {
				err = r.Next(&s)
				if err != nil {
					break
				}
				n++
				if s.Frame != int64(n) {
					t.Errorf("segment %d: Frame = %d, want %d", n, s.Frame, n)
				}
			}
			if tt.segs >= 0 && n != tt.segs {
				t.Errorf("read %d segments, want %d", n, tt.segs)
			}
			if tt.frameErr > 0 {
				var fe *FrameError
				if !errors.As(err, &fe) || fe.Frame != tt.frameErr || fe.File != "cut.pcap" {
					t.Fatalf("Next = %v, want *FrameError{File: cut.pcap, Frame: %d}", err, tt.frameErr)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("Next = %v, want errors.Is %v", err, tt.is)
				}
				if !strings.HasPrefix(err.Error(), "cut.pcap: frame 1: ") {
					t.Errorf("Next error = %q, want prefix %q", err, "cut.pcap: frame 1: ")
				}
			} else if err != io.EOF {
				t.Fatalf("Next = %v, want io.EOF", err)
			}
			w := r.Warnings()
			switch {
			case tt.warning == "" && len(w) != 0:
				t.Errorf("Warnings() = %q, want none", w)
			case tt.warning != "" && (len(w) != 1 || !strings.HasPrefix(w[0], tt.warning)):
				t.Errorf("Warnings() = %q, want one starting %q", w, tt.warning)
			}
			if err := r.Next(&s); err != io.EOF {
				t.Errorf("Next after the end = %v, want io.EOF", err)
			}
		})
	}
}

// TestReadNeverPanics reads every prefix of captures in each format, and
// the same captures with one byte flipped at each offset.
func TestReadNeverPanics(t *testing.T) {
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	ng.AddInterface(pcaptest.LinkEthernet, 9, 0, 0)
	ng.AddInterface(pcaptest.LinkRadiotap, 0x80|20, 100, 64)
	ng.Add(t0, 0, pcaptest.Ethernet(ip4))
	ng.Add(t0, 1, pcaptest.Radiotap(pcaptest.Dot11{QoS: true}.Frame(ip6), true))
	inputs := [][]byte{pcapOf(pcaptest.LinkEthernet, 0, threeSegs()[:2]...), ng.Bytes()}
	read := func(b []byte) {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("reading % x panicked: %v", b, p)
			}
		}()
		r, err := NewReader(bytes.NewReader(b), "x")
		if err != nil {
			return
		}
		var s Segment
		for i := 0; i < 100 && r.Next(&s) == nil; i++ {
		}
	}
	for _, in := range inputs {
		for n := range len(in) {
			read(in[:n])
			b := bytes.Clone(in)
			b[n] ^= 0xff
			read(b)
		}
	}
}

// TestPcapngSections reads two pcapng sections back to back (as cat or
// mergecap -a write them): the second redefines interface 0.
func TestPcapngSections(t *testing.T) {
	a := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	a.AddInterface(pcaptest.LinkEthernet, 9, 0, 0)
	a.Add(t0, 0, pcaptest.Ethernet(ip4))
	b := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, BigEndian: true})
	b.AddInterface(pcaptest.LinkRaw, 0x80|20, 0, 0)
	b.Add(time.Unix(1709294401, 5e8), 0, pcaptest.Raw(ip6))
	segs, r := readAll(t, cat(a.Bytes(), b.Bytes()))
	if len(segs) != 2 {
		t.Fatalf("got %d segments, want 2; Stats = %+v", len(segs), r.Stats())
	}
	w1, w2 := want4, want6
	w1.Frame, w1.Time, w1.CapLen, w1.WireLen = 1, t0ns, 178, 178
	w2.Frame, w2.Time, w2.CapLen, w2.WireLen = 2, 1709294401_500000000, len(ip6), len(ip6)
	checkSeg(t, segs[0], w1)
	checkSeg(t, segs[1], w2)
}

func TestStats(t *testing.T) {
	udp4 := cat(ipv4Hdr(17, 8), udp(53, nil))
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	f.Add(t0.Add(5*time.Millisecond), 0, ip4)      // frame 1: segment
	f.Add(t0.Add(7*time.Millisecond), 0, udp4)     // frame 2: UDP
	f.Add(t0.Add(6*time.Millisecond), 0, ip6)      // frame 3: segment, 1 ms back
	f.Add(t0.Add(6*time.Millisecond), 0, ip4)      // frame 4: same time: not backwards
	f.Add(t0, 0, udp4)                             // frame 5: UDP, 6 ms back
	f.Add(t0.Add(9*time.Millisecond), 0, ip6)      // frame 6: segment
	f.Add(t0.Add(8*time.Millisecond), 0, ip4[:30]) // frame 7: truncated, 1 ms back
	segs, r := readAll(t, f.Bytes())
	var frames []int64
	for _, s := range segs {
		frames = append(frames, s.Frame)
	}
	if want := []int64{1, 3, 4, 6}; !equalInts(frames, want) {
		t.Errorf("segment frames = %v, want %v", frames, want)
	}
	want := Stats{
		Frames: 7, Segments: 4, NonTCP: 2, Truncated: 1, TimeBackwards: 3,
		First: t0ns + 5e6, Last: t0ns + 8e6,
	}
	if got := r.Stats(); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
	if got, want := want.Last.Sub(want.First), 3*time.Millisecond; got != want {
		t.Errorf("Last.Sub(First) = %v, want %v", got, want)
	}
	if got, want := t0ns.Time(), t0; !got.Equal(want) {
		t.Errorf("Timestamp.Time() = %v, want %v", got, want)
	}
	if got, want := Timestamp(1_500_000_000).Seconds(), 1.5; got != want {
		t.Errorf("Timestamp.Seconds() = %v, want %v", got, want)
	}
}

func equalInts(a, b []int64) bool {
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

// TestNextDoesNotAllocate checks that Reader.Next allocates nothing per
// packet once warm: each run reads perRun segments of an in-memory capture.
func TestNextDoesNotAllocate(t *testing.T) {
	const runs, perRun = 50, 100
	const packets = (runs+2)*perRun + 100
	var bulk bytes.Buffer
	if err := pcaptest.WriteBulk(&bulk, pcaptest.GenOptions{Packets: packets, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	ng.AddInterface(pcaptest.LinkEthernet, 9, 0, 0)
	ng.AddInterface(pcaptest.LinkLinuxSLL, 0x80|20, 0, 0)
	for i := range packets {
		p := seg4
		p.Seq += uint32(100 * i)
		if i%2 == 0 {
			ng.Add(t0.Add(time.Duration(i)*time.Microsecond), 0, pcaptest.Ethernet(p.IP()))
		} else {
			ng.Add(t0.Add(time.Duration(i)*time.Microsecond), 1, pcaptest.LinuxSLL(p.IP()))
		}
	}
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"pcap-bulk", bulk.Bytes()},
		{"pcapng-two-interfaces", ng.Bytes()},
		{"gzip-pcap-bulk", gzipped(t, bulk.Bytes())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tt.data), "bulk")
			if err != nil {
				t.Fatal(err)
			}
			var s Segment
			for range 100 { // warm up
				if err := r.Next(&s); err != nil {
					t.Fatalf("Next = %v", err)
				}
			}
			var failed error
			allocs := testing.AllocsPerRun(runs, func() {
				for range perRun {
					if err := r.Next(&s); err != nil && failed == nil {
						failed = err
					}
				}
			})
			if failed != nil {
				t.Fatalf("Next = %v", failed)
			}
			if perPacket := allocs / perRun; perPacket != 0 {
				t.Errorf("Reader.Next allocates %v times per packet, want 0", perPacket)
			}
		})
	}
}

func BenchmarkReaderNext(b *testing.B) {
	var bulk bytes.Buffer
	if err := pcaptest.WriteBulk(&bulk, pcaptest.GenOptions{Packets: 20000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	data := bulk.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data), "bulk")
		if err != nil {
			b.Fatal(err)
		}
		var s Segment
		for r.Next(&s) == nil {
		}
	}
}

// TestCutCaptureInWholeStream: a capture cut mid-record and then
// compressed (the gzip or zstd stream whole) says the capture was cut; a
// compressed file cut says the stream ends early (fresh-eyes trial: both
// said the compressed file was cut).
func TestCutCaptureInWholeStream(t *testing.T) {
	pcap := pcapOf(pcaptest.LinkEthernet, 0, threeSegs()...)
	cut := pcap[:len(pcap)-5]
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"gzip of a cut capture", gzipped(t, cut), "frame 3: capture cut mid-record (the gzip stream itself is whole: the capture was cut before it was compressed)"},
		{"zstd of a cut capture", zstded(t, cut), "frame 3: capture cut mid-record (the zstd stream itself is whole: the capture was cut before it was compressed)"},
		{"cut gzip", gzipped(t, pcap)[:len(gzipped(t, pcap))-12], "the gzip stream ends early (the compressed file is cut)"},
	} {
		r, err := NewReader(bytes.NewReader(c.data), "c.pcap")
		if err != nil {
			t.Fatal(err)
		}
		var s Segment
		for r.Next(&s) == nil {
		}
		if w := strings.Join(r.Warnings(), "\n"); !strings.Contains(w, c.want) {
			t.Errorf("%s: warnings %q, want %q", c.name, w, c.want)
		}
	}
}
