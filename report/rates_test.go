package report

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/query"
)

// TestRatesAreTput: the report's throughput and goodput series are the
// rows of 'tcpviz tput --ref syn --interval W' for the report's interval
// W, one row per interval, at the same times (one binning rule,
// tcpanalysis.BinsFrom): on geo-600ms-loss (25.185 s; W = 2 ms: 12593
// intervals) the rates agree to the printed 3 decimals, and the bytes add
// up to tput's "sent in window" and "acked in window" rows.
func TestRatesAreTput(t *testing.T) {
	const geo = "../testdata/synthetic/geo-600ms-loss.pcap"
	sel := query.All()
	sel.Ref = query.RefSYN
	probe, err := query.Analyze(geo, sel, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := niceBin(probe.Conn.Conn.Duration() / 16384)
	if w != 2*time.Millisecond {
		t.Fatalf("report interval %v, want 2ms", w)
	}
	v, err := query.Analyze(geo, sel, query.Options{Interval: w})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := export.Tput(v, nil, 0, export.AckedByReceiver)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]series{}
	for _, s := range extractOf(v.Report, v.Conn, v.Dir) {
		by[s.ID] = s
	}
	tp, gp := by["tput"], by["goodput"]
	if tp.BinUS != 2000 || gp.BinUS != 2000 {
		t.Fatalf("bin widths %d, %d µs, want 2000", tp.BinUS, gp.BinUS)
	}
	if len(tab.Rows) != 12593 || tp.L0.len() != len(tab.Rows) || gp.L0.len() != len(tab.Rows) {
		t.Fatalf("tput has %d rows, the report %d and %d intervals; want 12593", len(tab.Rows), tp.L0.len(), gp.L0.len())
	}
	// Header: conn, dir, t_s, conn_t_s, interval_s, throughput_kbps,
	// goodput_kbps, cum_acked_bytes.
	kbps := func(bytes int64) string {
		return strconv.FormatFloat(query.RateKbps(bytes, float64(tp.BinUS)/1e6), 'f', 3, 64)
	}
	var sent, acked int64
	for i, row := range tab.Rows {
		sent, acked = sent+tp.L0.Y[i], acked+gp.L0.Y[i]
		x := strconv.FormatFloat(float64(tp.L0.X[i])/1e6, 'f', 6, 64)
		if row[3] != x || row[5] != kbps(tp.L0.Y[i]) || row[6] != kbps(gp.L0.Y[i]) || gp.L0.X[i] != tp.L0.X[i] {
			t.Fatalf("interval %d: tput (conn_t_s %s, %s, %s kbit/s), report (%s s, %s, %s kbit/s)", i, row[3], row[5], row[6], x, kbps(tp.L0.Y[i]), kbps(gp.L0.Y[i]))
		}
	}
	// geo-600ms-loss with --ref syn: every payload byte (584 992) sent,
	// 579 200 acknowledged (README, docs/metrics.md#throughput-over-time).
	if sent != 584992 || acked != 579200 {
		t.Errorf("report intervals hold %d B sent, %d B acked; want 584992, 579200", sent, acked)
	}
	for _, row := range tab.Summary {
		if want := map[string]int64{"sent in window": sent, "acked in window": acked}; want[row[0]] != 0 && !strings.HasPrefix(row[1], strconv.FormatInt(want[row[0]], 10)+" ") {
			t.Errorf("tput %q = %q, the report's intervals add up to %d", row[0], row[1], want[row[0]])
		}
	}
	// The 3 s retransmission (frame 108) sends 1448 B in interval 1501
	// ([3.002, 3.004) s), as tput's row says.
	if tp.L0.X[1501] != 3_002_000 || tp.L0.Y[1501] < 1448 || tab.Rows[1501][3] != "3.002000" {
		t.Errorf("interval 1501 at %d µs holds %d B; tput row at %s s", tp.L0.X[1501], tp.L0.Y[1501], tab.Rows[1501][3])
	}
}

// TestSeqPanelIsSeqRows: the report's Stevens graph holds the points of
// 'tcpviz seq --csv' on geo-600ms-loss: every data row as a bar of its
// class (frame, start, end, conn_t_s): 400 new, 4 retransmitted, SYN and
// FIN; every ACK row (255) on the ACK line and,
// where the window is known, its edge on the window-edge line.
func TestSeqPanelIsSeqRows(t *testing.T) {
	got := seqPanelIsSeqRows(t, "../testdata/synthetic/geo-600ms-loss.pcap")
	if len(got["seg"]) != 400 || len(got["retx"]) != 4 || len(got["ack"]) != 255 || len(got["synfin"]) != 2 {
		t.Errorf("%d data, %d retransmitted bars, %d ACKs, %d SYN/FIN", len(got["seg"]), len(got["retx"]), len(got["ack"]), len(got["synfin"]))
	}
}

// TestSeqPanelMarksFinOnData: ns3-tcp-bulk-send's last data segment
// (frame 282, relative 99673..100000, 328 B) carries the FIN (100001): it
// is a data bar, and the FIN gets the SYN/FIN mark at 100001 as a bare FIN
// would; the other mark is the SYN (frame 1, 0).
func TestSeqPanelMarksFinOnData(t *testing.T) {
	got := seqPanelIsSeqRows(t, filepath.Join(sharedtest.Dir(t, "corpus"), "ns3-tcp-bulk-send-0-0.pcap"))
	var marks []string
	for _, p := range got["synfin"] {
		marks = append(marks, fmt.Sprintf("frame %d [%d, %d)", p.frame, p.a, p.b))
	}
	if want := "frame 1 [0, 1); frame 282 [100001, 100002)"; strings.Join(marks, "; ") != want {
		t.Errorf("SYN/FIN marks %q, want %q", strings.Join(marks, "; "), want)
	}
}

// seqPt is one point of a Stevens-graph series: time (µs), frame, and
// the bar's ends (or the value and 0).
type seqPt struct{ us, frame, a, b int64 }

// seqPanelIsSeqRows checks that the report's Stevens graph of the capture
// at path holds the points of 'tcpviz seq --csv' (a SYN or FIN, bare or on
// payload, also as a SYN/FIN mark at its own sequence number) and returns
// the report's points by series.
func seqPanelIsSeqRows(t *testing.T, path string) map[string][]seqPt {
	t.Helper()
	v, err := query.Analyze(path, query.All(), query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type pt = seqPt
	got := map[string][]pt{}
	for _, s := range extractOf(v.Report, v.Conn, v.Dir) {
		if s.Panel != "seq" {
			continue
		}
		for i := range s.L0.X {
			p := pt{s.L0.X[i], s.L0.F[i], s.L0.Y[i], 0}
			if s.L0.Y2 != nil {
				p = pt{s.L0.X[i], s.L0.F[i], s.L0.Y2[i], s.L0.Y[i]}
			}
			got[s.ID] = append(got[s.ID], p)
		}
	}
	want := map[string][]pt{}
	class := map[string]string{"new": "seg", "retransmitted": "retx", "out_of_order": "ooo", "probe": "probe"}
	for _, r := range export.SeqRows(v) {
		us := int64(r.ConnTS*1e6 + 0.5)
		switch r.Type {
		case "data":
			id := class[r.Class]
			bare := r.End-r.Start == 1 && strings.ContainsAny(r.Flags, "SF") // a SYN or FIN without payload
			if bare && r.Class != "retransmitted" {
				id = "synfin"
			}
			want[id] = append(want[id], pt{us, r.Frame, r.Start, r.End})
			// A bare SYN or FIN sent again is a retransmission that
			// keeps its SYN/FIN mark.
			if bare && r.Class == "retransmitted" {
				want["synfin"] = append(want["synfin"], pt{us, r.Frame, r.Start, r.End})
			}
			// A SYN or FIN on payload is marked too, at its own number.
			if !bare && strings.Contains(r.Flags, "S") {
				want["synfin"] = append(want["synfin"], pt{us, r.Frame, r.Start, r.Start + 1})
			}
			if !bare && strings.Contains(r.Flags, "F") {
				want["synfin"] = append(want["synfin"], pt{us, r.Frame, r.End - 1, r.End})
			}
		case "ack":
			want["ack"] = append(want["ack"], pt{us, r.Frame, r.Start, 0})
			if r.Class == "window_known" {
				want["edge"] = append(want["edge"], pt{us, r.Frame, r.End, 0})
			}
		case "sack":
			want["sack"] = append(want["sack"], pt{us, r.Frame, r.Start, r.End})
		}
	}
	for id, w := range want {
		if g := got[id]; !reflect.DeepEqual(g, w) {
			t.Errorf("%s: report %d points, seq rows %d (first %v vs %v)", id, len(g), len(w), g[:min(1, len(g))], w[:min(1, len(w))])
		}
	}
	return got
}

// TestSeqPanelRetransmittedSYN: zeek-tcp-option-sack's SYN is sent four
// times (frames 1-4, no answer); the seq rows class frames 2-4
// retransmitted. The report draws them as retransmissions (red, as the
// PNG) and keeps all four SYN marks.
func TestSeqPanelRetransmittedSYN(t *testing.T) {
	got := seqPanelIsSeqRows(t, filepath.Join(sharedtest.Dir(t, "corpus"), "zeek-tcp-option-sack.pcap"))
	frames := func(ps []seqPt) (out []int64) {
		for _, p := range ps {
			out = append(out, p.frame)
		}
		return out
	}
	if r, m := fmt.Sprint(frames(got["retx"])), fmt.Sprint(frames(got["synfin"])); r != "[2 3 4]" || m != "[1 2 3 4]" {
		t.Errorf("retransmitted frames %s, SYN/FIN marks %s; want [2 3 4], [1 2 3 4]", r, m)
	}
}
