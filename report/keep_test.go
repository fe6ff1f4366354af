package report

import (
	"testing"

	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestKeepLargest: of connections with 100, 900, 500 and 50 bytes (10, 90,
// 50, 5 packets), at most 3 and 100 packets keep the 900-byte one (90
// packets), skip the 500-byte one (90 + 50 > 100) and keep the 100-byte
// one (90 + 10); the largest is kept even when it alone is over the limit.
func TestKeepLargest(t *testing.T) {
	rep := &tcpanalysis.Report{}
	for _, c := range [][2]int64{{100, 10}, {900, 90}, {500, 50}, {50, 5}} {
		r := &tcpanalysis.ConnResult{}
		r.Dir[0].Bytes, r.Dir[0].Pkts = c[0], c[1]
		rep.Conns = append(rep.Conns, r)
	}
	keep, pkts := KeepLargest(rep, 3, 100)
	if len(keep) != 2 || !keep[1] || !keep[0] || pkts != 100 {
		t.Errorf("keep %v, %d packets; want conns 1 and 0, 100 packets", keep, pkts)
	}
	if Fits(rep, 4, 155) != true || Fits(rep, 4, 154) || Fits(rep, 3, 1000) {
		t.Error("Fits: want 4 connections / 155 packets to fit exactly")
	}
	keep, pkts = KeepLargest(rep, 1, 10)
	if len(keep) != 1 || !keep[1] || pkts != 90 {
		t.Errorf("keep %v, %d packets; want the largest alone", keep, pkts)
	}
}
