package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/query"
)

const (
	satOff = "../../testdata/sat/pep-off_window-20KB/client.pcap"
	satOn  = "../../testdata/sat/pep-on_window-20KB/client.pcap"
)

// TestCompareSeriesCSV writes every metric of the PEP comparison as CSV and
// checks the columns, the labels, the --from/--to range (ref_t_s) and the
// time base (t_s since the capture's first frame: the PEP-off connection
// starts 1.840 s into its capture).
func TestCompareSeriesCSV(t *testing.T) {
	dir := t.TempDir()
	for _, m := range query.Metrics() {
		out := filepath.Join(dir, m.String()+".csv")
		_, _, err := runCLI(t, "compare", "nopep="+satOff, "pep="+satOn, "--metric", m.String(), "--from", "0", "--to", "5", "-o", out)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		f, _ := os.Open(out)
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(recs[0], ",") != "label,metric,t_s,ref_t_s,value" {
			t.Fatalf("%s: header %v", m, recs[0])
		}
		labels := map[string]int{}
		for _, r := range recs[1:] {
			labels[strings.Fields(r[0])[0]]++ // "pep accepted by PEP": the run pep
			ts, _ := strconv.ParseFloat(r[2], 64)
			ref, _ := strconv.ParseFloat(r[3], 64)
			if r[1] != m.String() || ref < 0 || ref > 5 || ts < ref {
				t.Errorf("%s: row %v outside --from 0 --to 5, or t_s before ref_t_s", m, r)
				break
			}
		}
		// Both runs have data, RTT samples and windows in their first 5 s.
		switch m {
		case query.MetricSeq, query.MetricAck, query.MetricRTT, query.MetricWindow, query.MetricInFlight, query.MetricGoodput, query.MetricThroughput:
			if labels["nopep"] == 0 || labels["pep"] == 0 {
				t.Errorf("%s: rows per label %v; want both runs", m, labels)
			}
		}
	}
}

func TestCompareFigures(t *testing.T) {
	dir := t.TempDir()
	for _, c := range [][]string{
		{"--metric", "rtt", "--layout", "grid"},
		{"--metric", "tput", "--align", "syn"},
		{"--metric", "inflight", "--dir", "a2b", "--from", "1", "--to", "3"},
	} {
		out := filepath.Join(dir, strings.Join(c, "")+".png")
		if _, _, err := runCLI(t, append([]string{"compare", "nopep=" + satOff, "pep=" + satOn + "#1", "-o", out}, c...)...); err != nil {
			t.Errorf("%v: %v", c, err)
		} else if st, err := os.Stat(out); err != nil || st.Size() < 1000 {
			t.Errorf("%v: no figure", c)
		}
	}
	for _, bad := range [][]string{{"--metric", "cwnd"}, {"--layout", "stack"}, {"--align", "fin"}, {"-o", "x.json"}, {"--conn", "1"}, {"--at", "-1"}, {"--bytes", "-5"}} {
		_, _, err := runCLI(t, append([]string{"compare", "a=" + filepath.Join(dir, "never-read.pcap")}, bad...)...)
		if exitCode(err) != 1 || strings.Contains(err.Error(), "never-read") {
			t.Errorf("compare %v: exit %d, %v; want a usage error before reading", bad, exitCode(err), err)
		}
	}
	if _, _, err := runCLI(t, "compare", "a="+satOff+"#7"); exitCode(err) != 2 {
		t.Errorf("compare a=FILE#7 (the capture has 2 connections): exit %d, %v; want 2", exitCode(err), err)
	}
}
