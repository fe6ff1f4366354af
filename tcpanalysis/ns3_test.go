package tcpanalysis

import (
	"encoding/csv"
	"fmt"
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
