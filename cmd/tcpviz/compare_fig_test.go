package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// TestCompareSeriesStyle: in the compare figure every series of run i has
// colour plot.Colour(i), and the delivered series of a pair run (seq:
// "delivered"; tput: "delivered (end to end)") are dashed, its sent series
// solid, so that a printed figure tells the runs and the kinds apart. The
// client side alone ("one": a PEP that never closes its window, on the
// sender's link) may be a PEP's: its goodput series says so.
func TestCompareSeriesStyle(t *testing.T) {
	client, server, _ := splitPair(t)
	e := &env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	var specs []compare.Spec
	for _, a := range []string{"one=" + client, "pair=" + client + "+" + server} {
		sp, err := compare.ParseSpec(a)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, sp)
	}
	sel := query.All()
	sel.Ref = query.RefBulk
	runs, views, err := e.compareRuns(specs, &analysisFlags{wscale: -1}, sel, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    query.Metric
		want []string // series names, in order
	}{
		{query.MetricSeq, []string{"one", "pair", "pair delivered"}},
		{query.MetricGoodput, []string{"one acked (receiver or PEP?)", "pair accepted by PEP", "pair delivered (end to end)"}},
	} {
		ss := compare.FigureSeries(runs, views, c.m, sel)
		if len(ss) != len(c.want) {
			t.Fatalf("%s: %d series, want %v", c.m, len(ss), c.want)
		}
		for i, s := range ss {
			run := 0
			if i > 0 {
				run = 1
			}
			dashed := i == 2
			if s.Name != c.want[i] || s.Color != plot.Colour(run) || s.Dashed != dashed {
				t.Errorf("%s: series %d = %q colour %v dashed %v; want %q colour %v dashed %v", c.m, i, s.Name, s.Color, s.Dashed, c.want[i], plot.Colour(run), dashed)
			}
		}
	}
}

// TestCompareZoomHoldsDelivered: in a zoom, a pair run's dashed
// "delivered" line starts at the left edge with the bytes delivered by
// then, as its sent line does (fresh-eyes trial: it began at its first
// point inside the zoom, and a zoom between two points dropped it); and a
// run whose last change came before the zoom, its connection still open,
// is drawn flat across it (the testbed's pep-on run stalls at 1.656 MB
// from 1.9 s to 6.05 s after its bulk start).
func TestCompareZoomHoldsDelivered(t *testing.T) {
	e := &env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	seq := func(from, to time.Duration, args ...string) []plot.Named {
		var specs []compare.Spec
		for _, a := range args {
			sp, err := compare.ParseSpec(a)
			if err != nil {
				t.Fatal(err)
			}
			specs = append(specs, sp)
		}
		sel := query.All()
		sel.Ref, sel.From, sel.To = query.RefBulk, from, to
		runs, views, err := e.compareRuns(specs, &analysisFlags{wscale: -1}, sel, 0)
		if err != nil {
			t.Fatal(err)
		}
		return compare.FigureSeries(runs, views, query.MetricSeq, sel)
	}
	p := "../../testdata/sat-pair/pep-off_window-20KB/"
	ss := seq(3*time.Second, 3300*time.Millisecond, "nopep="+p+"client.pcap.gz+"+p+"server.pcap.gz")
	if len(ss) != 2 || ss[1].Name != "nopep delivered" || len(ss[1].X) == 0 || ss[1].X[0] != 3 || ss[1].Y[0] < 100000 || ss[1].X[len(ss[1].X)-1] != 3.3 {
		t.Errorf("delivered in the 3–3.3 s zoom: %+v", ss)
	}
	on := "on=../../testdata/sat/pep-on_window-20KB/client.pcap"
	ss = seq(2*time.Second, 4*time.Second, on)
	if len(ss) != 1 || len(ss[0].X) != 2 || ss[0].X[0] != 2 || ss[0].X[1] != 4 || ss[0].Y[0] != ss[0].Y[1] || ss[0].Y[0] < 1.6e6 {
		t.Errorf("stalled run in the 2–4 s zoom: %+v", ss)
	}
	if ss = seq(30*time.Second, 40*time.Second, on); len(ss) != 1 || len(ss[0].X) != 0 { // after the connection's end
		t.Errorf("zoom after the end: %+v", ss)
	}
}

// TestCompareUnzoomedHolds: without --from the step lines start at the
// reference point with the value in force there, as with --from 0: the
// testbed's no-PEP run's ACK line began at its first ACK after the bulk
// start, 0.61 s in, leaving 0–0.61 s empty (fresh-eyes trial 2).
func TestCompareUnzoomedHolds(t *testing.T) {
	e := &env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	sp, err := compare.ParseSpec("nopep=../../testdata/sat/pep-off_window-20KB/client.pcap")
	if err != nil {
		t.Fatal(err)
	}
	sel := query.All()
	sel.Ref = query.RefBulk
	runs, views, err := e.compareRuns([]compare.Spec{sp}, &analysisFlags{wscale: -1}, sel, 0)
	if err != nil {
		t.Fatal(err)
	}
	ss := compare.FigureSeries(runs, views, query.MetricAck, sel)
	if len(ss) != 1 || len(ss[0].X) < 2 || ss[0].X[0] != 0 || ss[0].X[1] < 0.5 {
		t.Errorf("ack line: starts at %v, want 0 then the first ACK after it", ss[0].X[:min(2, len(ss[0].X))])
	}
}

// TestCompareSummaryRows: compare --csv writes the summary table's rows,
// one per metric and run, with the table's numbers at full precision and
// the notes on standard error; --json the same rows; -o and --pep beside
// them are refused.
func TestCompareSummaryRows(t *testing.T) {
	on, off := "on=../../testdata/sat/pep-on_window-20KB/client.pcap", "off=../../testdata/sat/pep-off_window-20KB/client.pcap"
	out, errs, err := runCLI(t, "compare", off, on, "--csv")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 20 || strings.Join(recs[0], ",") != "label,metric,unit,value,file,server_file,conn,dir,ref,from_s,to_s" ||
		strings.Join(recs[1][4:], ",") != "../../testdata/sat/pep-off_window-20KB/client.pcap,,1,ab,bulk,0," {
		t.Fatalf("CSV: %v, %d records", err, len(recs))
	}
	got := map[string]string{}
	for _, r := range recs[1:] {
		got[r[0]+"|"+r[1]] = r[3]
	}
	// The aligned table's numbers (TestGolden's compare-pep): 37685 and
	// 1656029 bytes sent after 1 s; no delivered bytes for the one-capture
	// PEP run.
	if got["off|sent after 1 s"] != "37685" || got["on|sent after 1 s"] != "1656029" || got["on|delivered after 1 s"] != "" || got["off|delivered after 1 s"] != "14517" {
		t.Errorf("rows: %v", got)
	}
	if !strings.Contains(errs, "note: on: the ACKs likely come from a split-TCP PEP") || strings.Contains(out, "note:") {
		t.Errorf("notes: stdout has them %v, stderr %q", strings.Contains(out, "note:"), errs)
	}
	// --pep --path-rtt shape the rows (the proof drops the PEP run's
	// goodput end to end); their verdicts go to standard error. --at 1
	// beside the default 1 s row: one row; --at 1000: a note, no row.
	out, errs, err = runCLI(t, "compare", off, on, "--csv", "--pep", "--path-rtt", "600ms", "--at", "1", "--at", "1000")
	if err != nil || !strings.Contains(errs, "PEP evidence for on") || strings.Contains(out, "PEP evidence") ||
		strings.Count(out, "off,sent after 1 s,") != 1 || strings.Contains(out, "after 1000 s") || !strings.Contains(errs, "note: --at 1000: no run lasted") {
		t.Errorf("--pep --at: err %v\nstdout %s\nstderr %s", err, out, errs)
	}
	js, _, err := runCLI(t, "compare", off, on, "--json")
	var doc struct {
		Schema string
		Rows   []struct {
			Label, Metric, Unit string
			Value               *float64
		}
	}
	if err != nil || json.Unmarshal([]byte(js), &doc) != nil || doc.Schema != "tcpviz.compare-summary/1" || len(doc.Rows) != len(recs)-1 {
		t.Errorf("JSON: err %v, schema %q, %d rows against %d", err, doc.Schema, len(doc.Rows), len(recs)-1)
	}
	for _, args := range [][]string{{"--csv", "-o", filepath.Join(t.TempDir(), "x.png")}, {"--csv", "--json"}} {
		if _, _, err := runCLI(t, append([]string{"compare", off, on}, args...)...); err == nil {
			t.Errorf("compare %v: no error", args)
		}
	}
}

// TestCompareSetupNote: a connection whose first data came long after its
// first packet (ns-3 aodv r1 flow 3 at its sink, a route found 39 s late)
// gets a note with the rate from the first packet, near PacketSink's
// 111.2 kbit/s; the testbed's runs, set up in one RTT, get none.
func TestCompareSetupNote(t *testing.T) {
	f := filepath.Join(sharedtest.Dir(t, "ns3"), "tcp-aodv-r1-1-0.pcap.gz")
	out, _, err := runCLI(t, "compare", "a="+f+"#2")
	if err != nil || !strings.Contains(out, "note: a: goodput end to end, 225.4 kbit/s, counts from the first data segment, 39.4 s after the connection's first packet") ||
		!strings.Contains(out, "about 115.9 kbit/s") {
		t.Errorf("err %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "compare", "off=../../testdata/sat/pep-off_window-20KB/client.pcap")
	if err != nil || strings.Contains(out, "counts from the first data segment") {
		t.Errorf("sat: err %v\n%s", err, out)
	}
}

// TestCompareRunEnd (trial s10): a receiver that never closed (ns-3 ends
// the simulation) is measured to the capture's last frame, the batch
// goodput's run end, not to its last ACK: olsr r1 flow 0 at its sink,
// whose packets stop about 5 s before the run does, 551.7 kbit/s as
// goodput --no-groundtruth gives (586.3 before; PacketSink 549.2), and
// a note says so, with 584.4 to the connection's last packet.
func TestCompareRunEnd(t *testing.T) {
	f := filepath.Join(sharedtest.Dir(t, "ns3"), "tcp-olsr-r1-10-0.pcap.gz")
	out, _, err := runCLI(t, "compare", "olsr="+f, "--port", "9000")
	if err != nil || !regexp.MustCompile(`goodput end to end\s+kbit/s\s+551\.7`).MatchString(out) ||
		!strings.Contains(out, "note: olsr: goodput end to end, 551.7 kbit/s, counts to the capture's last frame, 4.7 s after the connection's last packet") ||
		!strings.Contains(out, "to the connection's last packet it is about 584.4 kbit/s") {
		t.Errorf("err %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "goodput", f, "--no-groundtruth", "--csv")
	if err != nil || !strings.Contains(out, ",551.7") {
		t.Errorf("goodput: err %v\n%s", err, out)
	}
}
