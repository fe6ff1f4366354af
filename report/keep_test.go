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

// TestAnalyzeLimits: the satellite capture (2 connections) fits a report
// of 2 connections in one pass; with room for 1 a summary pass picks the
// data connection (conn 1) and a third pass keeps its series only.
func TestAnalyzeLimits(t *testing.T) {
	const path = "../testdata/sat/pep-off_window-20KB/client.pcap"
	var passes []bool // whether each pass kept every series
	analyze := func(p string, o tcpanalysis.Options) (*tcpanalysis.Report, error) {
		passes = append(passes, o.Keep != nil && o.Keep(0) && o.Keep(1))
		return tcpanalysis.AnalyzeFile(p, o)
	}
	rep, kept, total, _, err := Analyze(path, tcpanalysis.Options{}, Limits{Conns: 2, Packets: 1 << 20, OnePass: 1 << 30}, analyze)
	if err != nil || kept != 2 || total != 2 || len(passes) != 1 || len(rep.Conns) != 2 {
		t.Errorf("fits: kept %d of %d in %d passes, %v", kept, total, len(passes), err)
	}
	passes = nil
	rep, kept, total, pkts, err := Analyze(path, tcpanalysis.Options{}, Limits{Conns: 1, Packets: 1 << 20, OnePass: 1 << 30}, analyze)
	if err != nil || kept != 1 || total != 2 || len(passes) != 3 || pkts != rep.Conns[1].Dir[0].Pkts+rep.Conns[1].Dir[1].Pkts {
		t.Errorf("one of two: kept %d of %d, %d packets, in %d passes, %v", kept, total, pkts, len(passes), err)
	}
	if rep.Conns[1].Series == nil || rep.Conns[0].Series != nil {
		t.Errorf("series kept: conn 0 %v, conn 1 %v; want conn 1 only", rep.Conns[0].Series != nil, rep.Conns[1].Series != nil)
	}
}
