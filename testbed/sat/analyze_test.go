package sat

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// seg is one hand-made TCP segment for the synthetic capture.
type seg struct {
	at       time.Duration // since capture start
	toServer bool
	sport    uint16 // client port
	flags    string // any of "S", "A", "F"
	seq, ack uint32
	payload  int
}

func writeCapture(t *testing.T, segs []seg) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "synthetic.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(96, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	cli, srv := net.IPv4(10, 77, 1, 2).To4(), net.IPv4(10, 77, 2, 2).To4()
	for _, s := range segs {
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: cli, DstIP: srv}
		tcp := &layers.TCP{SrcPort: layers.TCPPort(s.sport), DstPort: 5201, Seq: s.seq, Ack: s.ack, Window: 65535}
		if !s.toServer {
			ip.SrcIP, ip.DstIP = srv, cli
			tcp.SrcPort, tcp.DstPort = tcp.DstPort, tcp.SrcPort
		}
		for _, c := range s.flags {
			switch c {
			case 'S':
				tcp.SYN = true
			case 'A':
				tcp.ACK = true
			case 'F':
				tcp.FIN = true
			}
		}
		tcp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
			eth, ip, tcp, gopacket.Payload(make([]byte, s.payload)))
		if err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(s.at), Length: len(data), CaptureLength: min(len(data), 96)}
		if err := w.WritePacket(ci, data[:ci.CaptureLength]); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestSummarizeSynthetic(t *testing.T) {
	const ctl, bulk = 39999, 40000
	segs := []seg{
		// iperf3 control connection: handshake RTT 610 ms, cookie only.
		{0, true, ctl, "S", 100, 0, 0},
		{ms(610), false, ctl, "SA", 900, 101, 0},
		{ms(610), true, ctl, "A", 101, 901, 37},
		// bulk connection, ISN 1000/5000, handshake RTT 600 ms.
		{ms(700), true, bulk, "S", 1000, 0, 0},
		{ms(1300), false, bulk, "SA", 5000, 1001, 0},
		{ms(1300), true, bulk, "A", 1001, 5001, 37},   // cookie, rel 1..38
		{ms(1900), false, bulk, "A", 5001, 1038, 0},   // RTT 600 ms
		{ms(2000), true, bulk, "A", 1038, 5001, 1000}, // bulk start, rel 38
		{ms(2001), true, bulk, "A", 2038, 5001, 1000},
		{ms(2600), false, bulk, "A", 5001, 2038, 0}, // RTT 600 ms
		{ms(2611), false, bulk, "A", 5001, 3038, 0}, // RTT 610 ms
		{ms(2700), true, bulk, "A", 3038, 5001, 1000},
		{ms(2900), true, bulk, "A", 3038, 5001, 1000}, // retransmission
		{ms(3100), true, bulk, "A", 4038, 5001, 1000}, // after bulk start + 1 s
		{ms(3300), false, bulk, "A", 5001, 4038, 0},   // no sample (Karn)
		{ms(3700), false, bulk, "A", 5001, 5038, 0},   // RTT 600 ms
	}
	s, err := Summarize(writeCapture(t, segs))
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{
		Frames: len(segs), Conns: 2, Bulk: "10.77.1.2:40000 -> 10.77.2.2:5201",
		HandshakeRTT: ms(600), FirstHandshakeRTT: ms(610),
		ACKRTTMedian: ms(600), ACKRTTP90: ms(610), ACKRTTCount: 4,
		BulkStart:     ms(1300), // 2.0 s, since the bulk SYN at 0.7 s
		SeqProgress1s: 3000,     // by 3.0 s: rel 38 → 3038
		Acked1s:       2000,     // by 3.0 s: ack 3038 = rel 2038
		PayloadBytes:  37 + 5*1000, Retransmits: 1,
	}
	if s != want {
		t.Errorf("Summarize =\n %+v\nwant\n %+v", s, want)
	}
}
