package pcaptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTsharkAgrees writes one TCP segment per link type into a pcapng file
// and checks that tshark, when installed, finds the TCP header and good IP
// and TCP checksums in every frame.
func TestTsharkAgrees(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil || testing.Short() {
		t.Skip("tshark not installed or -short")
	}
	seg4 := TCP{Src: cli4, Dst: srv4, Seq: 11, Ack: 22, Flags: ACK | PSH, TS: true, TSval: 1, TSecr: 2, SACK: [][2]uint32{{3, 4}}, PayloadLen: 33, IPOptions: []byte{1, 1, 1, 1}}
	seg6 := TCP{Src: cli6, Dst: srv6, Seq: 11, Ack: 22, Flags: ACK, PayloadLen: 33, IPv6Ext: []IPv6Ext{{Proto: ProtoHopByHop}, {Proto: ProtoDstOpts}}}
	ip4, ip6 := seg4.IP(), seg6.IP()
	frames := []struct {
		name  string
		link  uint32
		frame []byte
		v6    bool
	}{
		{"ethernet", LinkEthernet, Ethernet(ip4, 5, 6), false},
		{"qinq-mpls", LinkEthernet, Eth{VLANs: []uint16{7, 8}, QinQ: true, MPLS: []uint32{100}}.Frame(ip6), true},
		{"sll", LinkLinuxSLL, LinuxSLL(ip4), false},
		{"sll2", LinkLinuxSLL2, LinuxSLL2(ip6, 2), true},
		{"null", LinkNull, Null(ip6, 0, false), true},
		{"ppp", LinkPPP, PPP(ip4), false},
		{"raw", LinkRaw, Raw(ip6), true},
		{"ipv4", LinkIPv4, Raw(ip4), false},
		{"ipv6", LinkIPv6, Raw(ip6), true},
		{"dot11", LinkIEEE80211, Dot11{QoS: true, Retry: true}.Frame(ip4), false},
		{"radiotap", LinkRadiotap, Radiotap(Dot11{ToDS: true}.Frame(ip6), true), true},
		{"prism", LinkPrism, Prism(Dot11{}.Frame(ip4)), false},
	}
	f := New(Options{Format: Pcapng, BigEndian: true})
	for i, fr := range frames {
		f.AddInterface(fr.link, 9, 0, 0)
		f.Add(t0, i, fr.frame)
	}
	path := filepath.Join(t.TempDir(), "all.pcapng")
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-r", path, "-n",
		"-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
		"-T", "fields", "-E", "separator=,", "-e", "tcp.seq_raw", "-e", "tcp.len", "-e", "ip.checksum.status", "-e", "tcp.checksum.status").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(frames) {
		t.Fatalf("tshark printed %d lines, want %d:\n%s", len(lines), len(frames), out)
	}
	for i, l := range lines {
		// seq, payload length, IPv4 and TCP checksum status (1 = good);
		// IPv6 has no header checksum.
		want := "11,33,1,1"
		if frames[i].v6 {
			want = "11,33,,1"
		}
		if l != want {
			t.Errorf("%s: tshark fields %q, want %q", frames[i].name, l, want)
		}
	}
}

// TestTsharkTimestamps checks that tshark reads the timestamps we meant
// from every file variant, including if_tsresol 2^-9 and if_tsoffset.
func TestTsharkTimestamps(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil || testing.Short() {
		t.Skip("tshark not installed or -short")
	}
	frame := Ethernet(TCP{Src: cli4, Dst: srv4, Flags: SYN}.IP())
	ts := time.Unix(1_741_064_767, 3*1953125) // exact in 2^-9 s
	ng := func(be bool, tsresol byte, off int64) []byte {
		f := New(Options{Format: Pcapng, BigEndian: be})
		f.AddInterface(LinkEthernet, tsresol, off, 0)
		f.Add(ts, 0, frame)
		return f.Bytes()
	}
	tests := []struct {
		name string
		file []byte
		want string // frame.time_epoch
	}{
		{"pcap-micro-le", New(Options{LinkType: LinkEthernet}).addOne(ts, frame), "1741064767.005859000"},
		{"pcap-nano-be", New(Options{Format: PcapNano, BigEndian: true, LinkType: LinkEthernet}).addOne(ts, frame), "1741064767.005859375"},
		{"pcapng-default", ng(false, 0, 0), "1741064767.005859000"},
		{"pcapng-ns-be", ng(true, 9, 0), "1741064767.005859375"},
		{"pcapng-2^-9-offset", ng(false, 0x89, 1_700_000_000), "1741064767.005859375"},
		{"pcapng-ms-negative-offset", ng(true, 3, -7200), "1741064767.005000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x")
			if err := os.WriteFile(path, tt.file, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(tshark, "-r", path, "-T", "fields", "-e", "frame.time_epoch").Output()
			if err != nil {
				t.Fatalf("tshark: %v", err)
			}
			if got := strings.TrimSpace(string(out)); got != tt.want {
				t.Errorf("frame.time_epoch = %s, want %s", got, tt.want)
			}
		})
	}
}

// addOne adds frame at ts and returns the file bytes.
func (f *File) addOne(ts time.Time, frame []byte) []byte {
	f.Add(ts, 0, frame)
	return f.Bytes()
}
