package compare

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

func TestParseSpec(t *testing.T) {
	for _, tt := range []struct {
		in                 string
		file, server       string
		conn               int
		pair, twoIfaces, e bool
	}{
		{in: "a=x.pcap", file: "x.pcap", conn: -1},
		{in: "a=x.pcap#2", file: "x.pcap", conn: 2},
		{in: "pep=c.pcap+s.pcap", file: "c.pcap", server: "s.pcap", conn: -1, pair: true},
		{in: "pep=c.pcap+s.pcap#1", file: "c.pcap", server: "s.pcap", conn: 1, pair: true},
		{in: "pep=both.pcapng+", file: "both.pcapng", server: "both.pcapng", conn: -1, pair: true, twoIfaces: true},
		{in: "=x", e: true},
		{in: "a=", e: true},
		{in: "a=x#b", e: true},
	} {
		sp, err := ParseSpec(tt.in)
		if (err != nil) != tt.e {
			t.Errorf("ParseSpec(%q): err %v", tt.in, err)
			continue
		}
		if tt.e {
			continue
		}
		if sp.File != tt.file || sp.ServerFile != tt.server || sp.Conn != tt.conn || sp.IsPair() != tt.pair || sp.TwoIfaces() != tt.twoIfaces {
			t.Errorf("ParseSpec(%q) = %+v", tt.in, sp)
		}
	}
}

// satRun analyses testdata/sat/NAME's client capture (the bulk connection)
// and returns its run and iperf3's received rate from client.json (kbit/s).
func satRun(t *testing.T, name string) (Run, float64) {
	t.Helper()
	dir := filepath.Join("../testdata/sat", name)
	m, _ := filepath.Glob(filepath.Join(dir, "client.pcap*"))
	if len(m) != 1 {
		t.Fatalf("%s: no client capture", dir)
	}
	rep, err := tcpanalysis.AnalyzeFile(m[0], tcpanalysis.Options{Detail: true, Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	var best *tcpanalysis.ConnResult
	for _, c := range rep.Conns {
		if best == nil || c.Dir[flows.AtoB].Unique > best.Dir[flows.AtoB].Unique {
			best = c
		}
	}
	r, err := NewRun(Spec{Label: name, File: m[0], Conn: -1}, rep, best, flows.AtoB, "bulk")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "client.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Recv float64 `json:"iperf_recv_bps"`
	}
	json.Unmarshal(b, &sc)
	return r, sc.Recv / 1000
}

// TestEndToEndOneCapture: without a PEP the client capture's end-to-end
// goodput (the receiver's interval moved to the receiver) is within 5 % of
// iperf3's received rate (measured: 260.0 vs 260.0 and 3711.5 vs 3713.9
// kbit/s); with a PEP the client capture's ACKs are the PEP's, so the
// end-to-end goodput is unknown and the rows say "accepted by PEP".
func TestEndToEndOneCapture(t *testing.T) {
	for _, name := range []string{"pep-off_window-20KB", "pep-off_window-default"} {
		r, want := satRun(t, name)
		got := r.EndToEndKbps()
		if r.ProxyAcked() || math.IsNaN(got) || math.Abs(got-want) > 0.05*want {
			t.Errorf("%s: end-to-end %.1f kbit/s (proxy %v), iperf3 received %.1f", name, got, r.ProxyAcked(), want)
		}
	}
	nopep, _ := satRun(t, "pep-off_window-20KB")
	withpep, _ := satRun(t, "pep-on_window-20KB")
	if !withpep.ProxyAcked() || !math.IsNaN(withpep.EndToEndKbps()) || !strings.Contains(withpep.Annotation(), "accepted") {
		t.Errorf("PEP run: proxy %v, end-to-end %v, note %q", withpep.ProxyAcked(), withpep.EndToEndKbps(), withpep.Annotation())
	}
	rows := Summary([]Run{nopep, withpep}, nil, 0)
	byName := map[string]Row{}
	for _, r := range rows {
		byName[r.Metric] = r
		if r.Metric == "goodput" || r.Metric == "acked after 1 s" {
			t.Errorf("row %q: ambiguous name behind a PEP", r.Metric)
		}
	}
	// Sequence progress 1 s after the bulk start: the study's 37×
	// (testdata: 37685 vs 1656029 bytes).
	sent := byName["sent after 1 s"]
	if len(sent.Values) != 2 || sent.Values[0] != 37685 || sent.Values[1] != 1656029 {
		t.Errorf("sent after 1 s = %v, want [37685 1656029]", sent.Values)
	}
	e2e := byName["goodput end to end"]
	if len(e2e.Values) != 2 || math.IsNaN(e2e.Values[0]) || !math.IsNaN(e2e.Values[1]) {
		t.Errorf("goodput end to end = %v, want [number NaN]", e2e.Values)
	}
	acc := byName["accepted by PEP"]
	if len(acc.Values) != 2 || !math.IsNaN(acc.Values[0]) || !(acc.Values[1] > 1000) {
		t.Errorf("accepted by PEP = %v, want [NaN >1000]", acc.Values)
	}
	if d := byName["delivered after 1 s"]; len(d.Values) != 2 || !math.IsNaN(d.Values[1]) {
		t.Errorf("delivered after 1 s = %v, want the PEP run unknown", d.Values)
	}
	if _, ok := byName["acked to sender after 10 s"]; ok {
		t.Errorf("a 10 s row for 5 s connections")
	}
}
