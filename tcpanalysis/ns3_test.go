package tcpanalysis

import (
	"encoding/csv"
	"net/netip"

	"fmt"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/seq"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tcpviz/tcpviz/flows"
)

// groundTruth reads ../shared/ns3/groundtruth-all.csv as maps by column.
func groundTruth(t *testing.T) (string, []map[string]string) {
	dir := filepath.Join(sharedDir(t), "ns3")
	f, err := os.Open(filepath.Join(dir, "groundtruth-all.csv"))
	if err != nil {
		t.Skip("../shared/ns3 not present")
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return dir, out
}

// TestNS3GoodputMatchesPacketSink checks the goodput bytes of every TCP
// flow, computed from the sink's capture, against the bytes ns-3's
// PacketSink received. They must be equal: the sink's capture holds every
// data frame addressed to the sink's MAC, and the goodput definition
// (docs/metrics.md#goodput) extends the last captured ACK through them.
func TestNS3GoodputMatchesPacketSink(t *testing.T) {
	dir, gt := groundTruth(t)
	cache := map[string]*Report{}
	for _, g := range gt {
		if g["transport"] != "tcp" {
			continue
		}
		name := fmt.Sprintf("tcp-%s-r%s-%s-0.pcap.gz", g["protocol"], g["run"], g["dst_node"])
		t.Run(name+"/flow"+g["flow_id"], func(t *testing.T) {
			rep := cache[name]
			if rep == nil {
				var err error
				rep, err = AnalyzeFile(filepath.Join(dir, name), Options{Flows: flows.Options{WScale: -1}})
				if err != nil {
					t.Fatal(err)
				}
				cache[name] = rep
			}
			want, _ := strconv.ParseInt(g["sink_rx_bytes"], 10, 64)
			var got int64
			found := false
			for _, r := range rep.Conns {
				a := r.Conn.Half[flows.AtoB].Addr
				if a.Addr().String() == g["src_ip"] && strconv.Itoa(int(a.Port())) == g["src_port"] {
					got += r.Dir[flows.AtoB].DeliveredBytes
					found = true
				}
			}
			if !found && want != 0 {
				t.Fatalf("flow %s:%s not found in %s", g["src_ip"], g["src_port"], name)
			}
			if got != want {
				t.Errorf("goodput bytes = %d, PacketSink received %d (diff %d)", got, want, got-want)
			}
		})
	}
}

// airRetransmissions counts, in a source node's capture, the data frames
// the source itself put on the air (transmitter = its MAC, Retry bit clear)
// whose sequence number is below the highest already sent: the sender's
// retransmissions that reached the radio (shared/ns3/README.md's method).
func airRetransmissions(t *testing.T, path string, src netip.AddrPort, mac [6]byte) int64 {
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var s capture.Segment
	var n int64
	var max seq.Num
	first := true
	for r.Next(&s) == nil {
		if s.Src != src || s.PayloadLen == 0 || s.TA != mac || s.Retry {
			continue
		}
		if !first && s.Seq.Less(max) {
			n++
		}
		if first || max.Less(s.Seq) {
			max, first = s.Seq, false
		}
	}
	return n
}

// TestNS3Retransmissions compares each flow's retransmissions, counted from
// its source's capture, with the segments ns-3's TCP socket retransmitted
// (tcp_retx_segs). The capture holds every relayed copy and MAC retry of a
// segment; folding them is what makes the counts agree (tshark flags about
// five times too many). Where more than 10 % apart, the difference must be
// retransmissions that never reached the air (dropped in the Wi-Fi queue or
// for lack of a route), which no capture can show: then tcpviz must agree
// with the count of the source's own first transmissions on the air.
func TestNS3Retransmissions(t *testing.T) {
	dir, gt := groundTruth(t)
	for _, g := range gt {
		if g["transport"] != "tcp" || g["tcp_retx_segs"] == "0" && g["sink_rx_bytes"] == "0" {
			continue
		}
		name := fmt.Sprintf("tcp-%s-r%s-%s-0.pcap.gz", g["protocol"], g["run"], g["src_node"])
		t.Run(name+"/flow"+g["flow_id"], func(t *testing.T) {
			path := filepath.Join(dir, name)
			rep, err := AnalyzeFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := strconv.ParseInt(g["tcp_retx_segs"], 10, 64)
			for _, r := range rep.Conns {
				a := r.Conn.Half[flows.AtoB]
				if a.Addr.Addr().String() != g["src_ip"] || strconv.Itoa(int(a.Addr.Port())) != g["src_port"] {
					continue
				}
				got := r.Dir[flows.AtoB].RetxSegs
				within := func(x, ref int64) bool { return abs(x-ref) <= max(ref/10, 2) }
				if within(got, want) {
					return
				}
				air := airRetransmissions(t, path, a.Addr, a.MAC)
				if !within(got, air) || air > want {
					t.Errorf("%d retransmissions, ns-3 socket %d, on the air %d", got, want, air)
				} else {
					t.Logf("%d retransmissions, ns-3 socket %d: %d never reached the air; on the air %d", got, want, want-air, air)
				}
				return
			}
			t.Errorf("flow not found")
		})
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
