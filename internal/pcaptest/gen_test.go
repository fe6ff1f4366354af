package pcaptest

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// genStats summarises a generated capture, decoded with gopacket.
type genStats struct {
	packets, syns, fins, rsts int
	retrans                   int // data segments below the highest seq seen in their direction
	backwards                 int // timestamps before their predecessor
	maxCaplen                 int
	conns                     int
}

func scanCapture(t *testing.T, data []byte) genStats {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if r.LinkType() != layers.LinkTypeEthernet {
		t.Errorf("link type = %v, want Ethernet", r.LinkType())
	}
	var st genStats
	type key struct{ net, tr gopacket.Flow }
	high := map[key]uint32{}
	var last time.Time
	for {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		st.packets++
		st.maxCaplen = max(st.maxCaplen, ci.CaptureLength)
		if ci.Timestamp.Before(last) {
			st.backwards++
		}
		last = ci.Timestamp
		p := gopacket.NewPacket(data, layers.LinkTypeEthernet, gopacket.Default)
		tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if !ok {
			t.Fatalf("packet %d: no TCP layer in %v", st.packets, p.Layers())
		}
		ip := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		if want := int(ip.Length) + 14; ci.Length != want {
			t.Fatalf("packet %d: len %d, want IP length + 14 = %d", st.packets, ci.Length, want)
		}
		if tcp.SYN && !tcp.ACK {
			st.syns++
			st.conns++
		}
		if tcp.FIN {
			st.fins++
		}
		if tcp.RST {
			st.rsts++
		}
		plen := int(ip.Length) - int(ip.IHL)*4 - int(tcp.DataOffset)*4
		k := key{p.NetworkLayer().NetworkFlow(), tcp.TransportFlow()}
		if plen > 0 {
			end := tcp.Seq + uint32(plen)
			if h, seen := high[k]; seen && int32(end-h) <= 0 {
				st.retrans++
			} else {
				high[k] = end
			}
		}
	}
	return st
}

func TestWriteBulk(t *testing.T) {
	var buf bytes.Buffer
	opts := GenOptions{Packets: 100_000, Flows: 5, Seed: 7}
	if err := WriteBulk(&buf, opts); err != nil {
		t.Fatal(err)
	}
	st := scanCapture(t, buf.Bytes())
	if st.packets != opts.Packets {
		t.Errorf("packets = %d, want exactly %d", st.packets, opts.Packets)
	}
	if st.syns != 5 || st.fins != 10 || st.rsts != 0 {
		t.Errorf("SYNs %d FINs %d RSTs %d, want 5 10 0", st.syns, st.fins, st.rsts)
	}
	if st.maxCaplen != 128 {
		t.Errorf("largest caplen = %d, want snaplen 128", st.maxCaplen)
	}
	if st.retrans == 0 || st.retrans > 200 {
		t.Errorf("retransmissions = %d, want a few dozen", st.retrans)
	}
	if st.backwards == 0 || st.backwards > 30 {
		t.Errorf("backward timestamps = %d, want a few", st.backwards)
	}

	var again bytes.Buffer
	if err := WriteBulk(&again, opts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Errorf("WriteBulk is not deterministic for a fixed seed")
	}
	opts.Seed++
	again.Reset()
	if err := WriteBulk(&again, opts); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Errorf("WriteBulk gives the same bytes for seeds 7 and 8")
	}
}

func TestWriteBulkTooFewPackets(t *testing.T) {
	if err := WriteBulk(io.Discard, GenOptions{Packets: 20, Flows: 3}); err == nil {
		t.Error("WriteBulk(20 packets, 3 flows) succeeded, want an error")
	}
}

func TestWriteShort(t *testing.T) {
	tests := []struct {
		name string
		opts GenOptions
	}{
		{"default-flows", GenOptions{Packets: 20_000, Seed: 1}},
		{"few-flows-full-snaplen", GenOptions{Packets: 3_001, Flows: 3, Seed: 2, Snaplen: 65535}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteShort(&buf, tt.opts); err != nil {
				t.Fatal(err)
			}
			st := scanCapture(t, buf.Bytes())
			if st.packets > tt.opts.Packets || st.packets <= tt.opts.Packets-shortPackets(1) {
				t.Errorf("packets = %d, want in (%d, %d]", st.packets, tt.opts.Packets-shortPackets(1), tt.opts.Packets)
			}
			if st.fins != 2*st.syns || st.retrans != 0 || st.backwards != 0 {
				t.Errorf("SYNs %d FINs %d retransmissions %d backwards %d, want FINs = 2*SYNs and no retransmissions or backward steps",
					st.syns, st.fins, st.retrans, st.backwards)
			}
			if per := float64(st.packets) / float64(st.conns); per < 30 || per > 45 {
				t.Errorf("%.1f packets per connection, want about 40", per)
			}
		})
	}
}

func TestGenPutDoesNotAllocate(t *testing.T) {
	g, err := newGenWriter(io.Discard, &GenOptions{Packets: 1 << 30}, 8)
	if err != nil {
		t.Fatal(err)
	}
	s := TCP{Src: cli4, Dst: srv4, Flags: ACK, TS: true, PayloadLen: genMSS, SACK: [][2]uint32{{1, 2}}}
	ts := t0
	if n := testing.AllocsPerRun(1000, func() { s.Seq += genMSS; g.put(ts, &s) }); n != 0 {
		t.Errorf("genWriter.put allocates %v times per packet, want 0", n)
	}
}

// BenchmarkWriteBulk measures generating a 1M-packet bulk capture in memory,
// as decoder benchmarks do.
func BenchmarkWriteBulk(b *testing.B) {
	var buf bytes.Buffer
	buf.Grow(160 << 20) // measure generating, not growing the buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteBulk(&buf, GenOptions{Packets: 1_000_000}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func BenchmarkWriteShort(b *testing.B) {
	var buf bytes.Buffer
	buf.Grow(160 << 20) // measure generating, not growing the buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteShort(&buf, GenOptions{Packets: 1_000_000}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
