package pcaptest

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// mustHex decodes hex, ignoring whitespace and "# ..." comments to the end
// of a line.
func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	var clean strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		line, _, _ = strings.Cut(line, "#")
		clean.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(clean.String())
	if err != nil {
		t.Fatalf("bad hex fixture: %v", err)
	}
	return b
}

// t0 has a sub-microsecond part so truncation to µs is visible.
var t0 = time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)

func TestPcapHeaderBytes(t *testing.T) {
	f := New(Options{Format: PcapMicro, LinkType: LinkEthernet, Snaplen: 4})
	f.Add(time.Unix(0x01020304, 5_006_000), 0, []byte{0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff})
	want := mustHex(t, `
		d4c3b2a1 0200 0400 00000000 00000000 04000000 01000000  # LE µs magic, v2.4, snaplen 4, Ethernet
		04030201 8e130000 04000000 06000000                     # ts 0x01020304 s + 5006 µs, caplen 4, len 6
		aabbccdd                                                # frame cut at snaplen
	`)
	if got := f.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("Bytes() =\n%x, want\n%x", got, want)
	}

	g := New(Options{Format: PcapNano, BigEndian: true, LinkType: LinkRaw})
	want = mustHex(t, `a1b23c4d 0002 0004 00000000 00000000 00040000 00000065`)
	if got := g.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("big-endian ns header = %x, want %x", got, want)
	}
}

func TestPcapngBytes(t *testing.T) {
	f := New(Options{Format: Pcapng})
	id := f.AddInterface(LinkEthernet, 9, 10, 0)
	f.Add(time.Unix(12, 5), id, []byte{1, 2, 3, 4, 5})
	want := mustHex(t, `
		0a0d0d0a 1c000000 4d3c2b1a 0100 0000 ffffffffffffffff 1c000000  # SHB, LE
		01000000 2c000000 0100 0000 00000400                             # IDB len 44, Ethernet, snaplen 262144
		0900 0100 09000000                                               # if_tsresol 10^-9
		0e00 0800 0a00000000000000                                       # if_tsoffset 10 s
		00000000 2c000000                                                # opt_endofopt, length
		06000000 28000000 00000000                                       # EPB len 40, interface 0
		00000000 05943577                                                # ts (12-10 s)*1e9 + 5 ns = 0x77359405
		05000000 05000000 0102030405000000 28000000                      # caplen, len, padded data
	`)
	if got := f.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("Bytes() =\n%x, want\n%x", got, want)
	}
}

func TestPcapReadBack(t *testing.T) {
	frames := [][]byte{
		bytes.Repeat([]byte{0x11}, 60),
		bytes.Repeat([]byte{0x22}, 100), // exactly snaplen
		bytes.Repeat([]byte{0x33}, 150), // cut to snaplen
	}
	times := []time.Time{t0, t0.Add(1500 * time.Microsecond), t0.Add(-time.Nanosecond)}
	tests := []struct {
		name string
		opts Options
		res  time.Duration // timestamp resolution
	}{
		{"micro-le", Options{Format: PcapMicro, LinkType: LinkEthernet, Snaplen: 100}, time.Microsecond},
		{"micro-be", Options{Format: PcapMicro, BigEndian: true, LinkType: LinkLinuxSLL, Snaplen: 100}, time.Microsecond},
		{"nano-le", Options{Format: PcapNano, LinkType: LinkRaw, Snaplen: 100}, time.Nanosecond},
		{"nano-be", Options{Format: PcapNano, BigEndian: true, LinkType: LinkNull, Snaplen: 100}, time.Nanosecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New(tt.opts)
			for i, fr := range frames {
				f.Add(times[i], 7, fr) // iface ignored for pcap
			}
			if f.Packets() != len(frames) {
				t.Errorf("Packets() = %d, want %d", f.Packets(), len(frames))
			}
			path := filepath.Join(t.TempDir(), "x.pcap")
			if err := f.WriteFile(path); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := pcapgo.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := r.LinkType(), layers.LinkType(tt.opts.LinkType); got != want {
				t.Errorf("LinkType() = %v, want %v", got, want)
			}
			if got := r.Snaplen(); got != 100 {
				t.Errorf("Snaplen() = %d, want 100", got)
			}
			for i, fr := range frames {
				data, ci, err := r.ReadPacketData()
				if err != nil {
					t.Fatalf("packet %d: %v", i, err)
				}
				if want := times[i].Truncate(tt.res); !ci.Timestamp.Equal(want) {
					t.Errorf("packet %d: timestamp = %v, want %v", i, ci.Timestamp, want)
				}
				wantCap := min(len(fr), 100)
				if ci.CaptureLength != wantCap || ci.Length != len(fr) {
					t.Errorf("packet %d: caplen, len = %d, %d, want %d, %d", i, ci.CaptureLength, ci.Length, wantCap, len(fr))
				}
				if !bytes.Equal(data, fr[:wantCap]) {
					t.Errorf("packet %d: data differs", i)
				}
			}
		})
	}
}

func TestPcapDefaultSnaplen(t *testing.T) {
	r, err := pcapgo.NewReader(bytes.NewReader(New(Options{LinkType: LinkEthernet}).Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Snaplen(); got != DefaultSnaplen {
		t.Errorf("Snaplen() = %d, want %d", got, DefaultSnaplen)
	}
}

func TestPcapngReadBack(t *testing.T) {
	type iface struct {
		link     uint32
		tsresol  byte
		tsoffset int64
		snaplen  int
	}
	ifaces := []iface{
		{LinkEthernet, 0, 0, 0},                 // default µs
		{LinkRaw, 9, 0, NoSnaplen},              // ns
		{LinkLinuxSLL, 0x89, 1_700_000_000, 64}, // 2^-9 s and an offset
		{LinkPPP, 3, -3600, 0},                  // ms and a negative offset
		{LinkIEEE80211, 0x80, 0, 0},             // whole seconds (2^0)
	}
	// 2^-9 s is 1953125 ns, so multiples of it come back exact.
	base := time.Unix(1_741_064_767, 0).UTC()
	const tick = 1953125 * time.Nanosecond
	type pkt struct {
		ifc  int
		ts   time.Time
		len  int
		want time.Time // timestamp read back
	}
	pkts := []pkt{
		{0, t0, 70, t0.Truncate(time.Microsecond)},
		{1, t0, 80, t0},
		{2, base.Add(3 * tick), 90, base.Add(3 * tick)},
		{3, t0, 41, t0.Truncate(time.Millisecond)},
		{4, base.Add(2*time.Second + time.Millisecond), 33, base.Add(2 * time.Second)},
		{0, t0.Add(time.Second), 1500, t0.Add(time.Second).Truncate(time.Microsecond)},
		{2, base, 200, base},
	}
	for _, be := range []bool{false, true} {
		name := "le"
		if be {
			name = "be"
		}
		t.Run(name, func(t *testing.T) {
			f := New(Options{Format: Pcapng, BigEndian: be})
			for i, ic := range ifaces {
				if id := f.AddInterface(ic.link, ic.tsresol, ic.tsoffset, ic.snaplen); id != i {
					t.Fatalf("AddInterface = %d, want %d", id, i)
				}
			}
			for _, p := range pkts {
				f.Add(p.ts, p.ifc, bytes.Repeat([]byte{byte(p.len)}, p.len))
			}
			r, err := pcapgo.NewNgReader(bytes.NewReader(f.Bytes()), pcapgo.NgReaderOptions{WantMixedLinkType: true})
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range pkts {
				data, ci, err := r.ReadPacketData()
				if err != nil {
					t.Fatalf("packet %d: %v", i, err)
				}
				if ci.InterfaceIndex != p.ifc {
					t.Errorf("packet %d: interface = %d, want %d", i, ci.InterfaceIndex, p.ifc)
				}
				if !ci.Timestamp.Equal(p.want) {
					t.Errorf("packet %d: timestamp = %v, want %v", i, ci.Timestamp, p.want)
				}
				wantCap := p.len
				if s := ifaces[p.ifc].snaplen; s > 0 {
					wantCap = min(p.len, s)
				}
				if ci.CaptureLength != wantCap || ci.Length != p.len || len(data) != wantCap {
					t.Errorf("packet %d: caplen, len, data = %d, %d, %d, want %d, %d", i, ci.CaptureLength, ci.Length, len(data), wantCap, p.len)
				}
				if got, want := ci.AncillaryData[0], layers.LinkType(ifaces[p.ifc].link); got != want {
					t.Errorf("packet %d: link type = %v, want %v", i, got, want)
				}
			}
			for i, ic := range ifaces {
				got, err := r.Interface(i)
				if err != nil {
					t.Fatal(err)
				}
				wantSnap := uint32(DefaultSnaplen)
				if ic.snaplen != 0 {
					wantSnap = uint32(max(ic.snaplen, 0))
				}
				if got.LinkType != layers.LinkType(ic.link) || got.SnapLength != wantSnap || int64(got.TimestampOffset) != ic.tsoffset {
					t.Errorf("Interface(%d) = link %v snaplen %d offset %d, want %d %d %d",
						i, got.LinkType, got.SnapLength, int64(got.TimestampOffset), ic.link, wantSnap, ic.tsoffset)
				}
			}
		})
	}
}

func TestPcapngImplicitInterface(t *testing.T) {
	f := New(Options{Format: Pcapng, LinkType: LinkIPv4, Snaplen: 50})
	f.Add(t0, 0, make([]byte, 60))
	r, err := pcapgo.NewNgReader(bytes.NewReader(f.Bytes()), pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	_, ci, err := r.ReadPacketData()
	if err != nil {
		t.Fatal(err)
	}
	if r.LinkType() != layers.LinkTypeIPv4 || ci.CaptureLength != 50 || ci.Length != 60 {
		t.Errorf("link %v caplen %d len %d, want IPv4 50 60", r.LinkType(), ci.CaptureLength, ci.Length)
	}
}
