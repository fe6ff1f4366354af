package monitor

import (
	"bytes"
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestRunRetransMatchesFile runs the retrans verb over the synthetic
// 600 ms-RTT capture as if it were live: it prints one CSV row per event,
// the same events a one-pass analysis of the file finds, and the summary
// of the open connection on Stderr. An RTO that later evidence shows
// spurious is printed as classified, then again as spurious (the later row
// replaces the earlier): with the replacement the rows are the file's.
func TestRunRetransMatchesFile(t *testing.T) {
	const path = "../testdata/synthetic/geo-600ms-loss.pcap"
	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{KeepEvents: true, Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range rep.Conns {
		for _, ev := range r.Events {
			want = append(want, strconv.FormatInt(ev.Frame, 10)+":"+ev.Class.String())
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := capture.NewReader(f, path)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	res, err := Run(rd, func() {}, Config{Verb: Retrans, Select: query.All(), CSV: true, Iface: "test", Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "conn,dir,t_s,conn_t_s,frame,class,seq,len,original_frame,evidence" {
		t.Errorf("header %v", recs[0])
	}
	var got []string
	at := map[string]int{} // conn and frame → place in got
	replaced := 0
	for _, r := range recs[1:] {
		k := r[0] + "/" + r[4]
		if i, ok := at[k]; ok {
			if r[5] != "spurious" || !strings.HasSuffix(got[i], ":rto") {
				t.Errorf("frame %s printed again as %s after %s", r[4], r[5], got[i])
			}
			got[i] = r[4] + ":" + r[5]
			replaced++
			continue
		}
		at[k] = len(got)
		got = append(got, r[4]+":"+r[5])
	}
	if len(want) == 0 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("live events %v, file events %v", got, want)
	}
	if replaced != 1 {
		t.Errorf("%d rows replace an earlier one, want 1 (the spurious RTO, frame 138)", replaced)
	}
	if res.Conns != len(rep.Conns) || res.Segments != rep.Stats.Segments || res.ReadErr != nil {
		t.Errorf("result %+v; want %d connections, %d segments", res, len(rep.Conns), rep.Stats.Segments)
	}
	if !strings.Contains(errb.String(), "event counts of the open connections:") {
		t.Errorf("stderr: %q; want the summary there (CSV on stdout)", errb.String())
	}
}

// TestVerbNames: every verb reads back from its name; others are errors.
func TestVerbNames(t *testing.T) {
	for _, v := range []Verb{Flows, RTT, Retrans, Tput} {
		if got, err := ParseVerb(v.String()); err != nil || got != v {
			t.Errorf("ParseVerb(%q) = %v, %v", v, got, err)
		}
	}
	if _, err := ParseVerb("seq"); err == nil {
		t.Error("ParseVerb(seq): no error")
	}
}
