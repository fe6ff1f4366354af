package query

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// testCaptures are the repository's captures (the synthetic one, the
// satellite runs with and without a PEP, the MANET runs), and ../shared's
// cases and corpus when present.
func testCaptures(t *testing.T) []string {
	var out []string
	for _, g := range []string{"../testdata/synthetic/*.pcap", "../testdata/sat/*/*.pcap", "../testdata/manet/*-1-0.pcap.gz"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	// ../shared's hand-made cases and corpus, when present.
	for _, g := range []string{"../../shared/cases/*.pcap", "../../shared/corpus/*.pcap", "../../shared/corpus/*.pcapng"} {
		m, _ := filepath.Glob(g)
		out = append(out, m...)
	}
	if len(out) < 4 {
		t.Fatalf("found %d test captures", len(out))
	}
	return out
}

// TestCountingPass: the counting pass (tcpanalysis.Options.Only selecting
// nothing) picks the connection and data direction a full analysis picks,
// and the two passes of a OneConn view give the series of one pass.
func TestCountingPass(t *testing.T) {
	for _, path := range testCaptures(t) {
		full, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{})
		if err != nil || len(full.Conns) == 0 {
			continue // not a capture this test is about (its own tests say why)
		}
		count, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Only: func(int) bool { return false }})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range full.Conns {
			c := count.Conns[i]
			for d := range r.Dir {
				a, b := r.Dir[d], c.Dir[d]
				if a.Bytes != b.Bytes || a.Pkts != b.Pkts || a.DeliveredBytes != b.DeliveredBytes || a.AckedBytes != b.AckedBytes {
					t.Errorf("%s conn %d dir %d: full %d/%d/%d/%d bytes/pkts/delivered/acked, counting %d/%d/%d/%d", path, i, d,
						a.Bytes, a.Pkts, a.DeliveredBytes, a.AckedBytes, b.Bytes, b.Pkts, b.DeliveredBytes, b.AckedBytes)
				}
			}
			if DataDirection(r) != DataDirection(c) {
				t.Errorf("%s conn %d: data direction %v, counting %v", path, i, DataDirection(r), DataDirection(c))
			}
		}
		one, err := Analyze(path, All(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		two, err := Analyze(path, All(), Options{OnePassLimit: 1, OneConn: true, Parts: tcpanalysis.PartSegs | tcpanalysis.PartAcks | tcpanalysis.PartSACKs | tcpanalysis.PartWindow})
		if err != nil {
			t.Fatal(err)
		}
		if one.Conn.Conn.Index != two.Conn.Conn.Index || one.Dir != two.Dir || one.Ref != two.Ref {
			t.Fatalf("%s: one pass conn %d %v, two passes conn %d %v", path, one.Conn.Conn.Index, one.Dir, two.Conn.Conn.Index, two.Dir)
		}
		d := one.Dir
		a, b := one.Conn.Series, two.Conn.Series
		if !same(a.Segs[d], b.Segs[d]) || !same(a.Acks[d], b.Acks[d]) || !same(a.SACKs[d], b.SACKs[d]) || !same(a.Window[d], b.Window[d]) {
			t.Errorf("%s: the two-pass series of conn %d differ from one pass", path, one.Conn.Conn.Index)
		}
		if rd := d.Reverse(); len(b.Segs[rd])+len(b.Acks[rd])+len(b.Window[rd]) != 0 || len(two.Conn.RTT)+len(two.Conn.Events) != 0 {
			t.Errorf("%s: the reverse direction, RTT samples or events were kept", path)
		}
		if one.Conn.Dir != two.Conn.Dir {
			t.Errorf("%s: summaries differ", path)
		}
		// The warnings are the chosen connection's and the capture's, the
		// same after one pass or two (the frames only overheard are
		// counted by the first pass).
		oneOne, err := Analyze(path, All(), Options{OneConn: true, Parts: growing})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := fmt.Sprint(oneOne.Warnings), fmt.Sprint(two.Warnings); a != b {
			t.Errorf("%s: warnings after one pass\n%s\nafter two\n%s", path, a, b)
		}
		if one.Matched != two.Matched || one.Matched != len(one.Conns) {
			t.Errorf("%s: %d connections match in one pass, %d after the streamed counting pass", path, one.Matched, two.Matched)
		}
		// rtt and retrans: samples and events of the chosen connection
		// alone, the same as one pass gives it.
		ev, err := Analyze(path, All(), Options{OnePassLimit: 1, OneConn: true, RTTSamples: true, Events: true, Parts: tcpanalysis.PartRTT | tcpanalysis.PartEvents})
		if err != nil {
			t.Fatal(err)
		}
		full1, err := Analyze(path, All(), Options{RTTSamples: true, Events: true})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Conn.Conn.Index != full1.Conn.Conn.Index || len(ev.Conn.RTT) != len(full1.Conn.RTT) || len(ev.Conn.Events) != len(full1.Conn.Events) {
			t.Errorf("%s: conn %d with %d RTT samples and %d events after two passes; one pass conn %d, %d, %d", path,
				ev.Conn.Conn.Index, len(ev.Conn.RTT), len(ev.Conn.Events), full1.Conn.Conn.Index, len(full1.Conn.RTT), len(full1.Conn.Events))
		}
	}
}

// TestFlightPoints: the bytes in flight rebuilt from segments and ACKs
// (tput keeps no window points) are those the analysis recorded, and so is
// the end of slow start.
func TestFlightPoints(t *testing.T) {
	compared := 0
	defer func() { t.Logf("%d flight points compared", compared) }()
	for _, path := range testCaptures(t) {
		rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			continue
		}
		for _, r := range rep.Conns {
			for _, d := range []flows.Direction{flows.AtoB, flows.BtoA} {
				bare := *r
				ser := *r.Series
				ser.Window = [2][]tcpanalysis.WindowPoint{}
				bare.Series = &ser
				var want, got []tcpanalysis.WindowPoint
				for w := range tcpanalysis.FlightPoints(r, d) {
					want = append(want, tcpanalysis.WindowPoint{Time: w.Time, Frame: w.Frame, InFlight: w.InFlight, FlightValid: w.FlightValid})
				}
				for w := range tcpanalysis.FlightPoints(&bare, d) {
					got = append(got, w)
				}
				compared += len(want)
				if len(want) > 0 && !reflect.DeepEqual(got, want) {
					t.Errorf("%s conn %d %v: %d rebuilt flight points differ from the %d recorded", path, r.Conn.Index, d, len(got), len(want))
				}
				t0 := tcpanalysis.FirstData(r, d)
				if a, b := tcpanalysis.SlowStartEnd(r, d, t0), tcpanalysis.SlowStartEnd(&bare, d, t0); a != b {
					t.Errorf("%s conn %d %v: slow start %+v, rebuilt %+v", path, r.Conn.Index, d, b, a)
				}
			}
		}
	}
}

// same reports whether a and b hold the same points (nil and empty alike).
func same[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// TestSeqPEPTwoPasses: seq --pep on a capture above the one-pass limit
// keeps the chosen connection's series and events (it kept no series and
// failed: "connection 6 was analysed without its series"), the same as
// one pass keeps them.
func TestSeqPEPTwoPasses(t *testing.T) {
	n := 0
	for _, path := range testCaptures(t) {
		one, err := Analyze(path, All(), PlanSeq(Want{Figure: true}, true))
		if err != nil {
			continue
		}
		o := PlanSeq(Want{Figure: true}, true)
		o.OnePassLimit = 1
		two, err := Analyze(path, All(), o)
		if err != nil {
			t.Fatal(err)
		}
		d := one.Dir
		if two.Conn.Series == nil || two.Conn.Conn.Index != one.Conn.Conn.Index || two.Dir != d {
			t.Fatalf("%s: two passes kept no series of conn %d", path, one.Conn.Conn.Index)
		}
		if !same(one.Conn.Series.Segs[d], two.Conn.Series.Segs[d]) || !same(one.Conn.Series.Acks[d], two.Conn.Series.Acks[d]) {
			t.Errorf("%s: the two-pass series differ from one pass", path)
		}
		if !reflect.DeepEqual(one.Conn.Events, two.Conn.Events) {
			t.Errorf("%s: %d events after two passes, %d in one", path, len(two.Conn.Events), len(one.Conn.Events))
		}
		n++
	}
	if n < 4 {
		t.Fatalf("%d captures compared", n)
	}
}

// TestFileReplacedBetweenPasses: a capture replaced between the two
// passes (mv of another capture onto it) is an error naming it and
// wrapping capture.ErrFileChanged; one that grew (a capture still being
// written) gives what the first pass saw.
func TestFileReplacedBetweenPasses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, seed int64) string {
		var w bytes.Buffer
		if err := pcaptest.WriteBulk(&w, pcaptest.GenOptions{Packets: 20000, Flows: 3, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a.pcap", 1), write("b.pcap", 2)
	opts := func(after func()) Options {
		passes := 0
		return Options{OnePassLimit: 1, OneConn: true, Parts: growing, AnalyzeFile: func(p string, o tcpanalysis.Options) (*tcpanalysis.Report, error) {
			rep, err := tcpanalysis.AnalyzeFile(p, o)
			if passes++; passes == 1 {
				after()
			}
			return rep, err
		}}
	}
	want, err := Analyze(a, All(), Options{OnePassLimit: 1, OneConn: true, Parts: growing})
	if err != nil {
		t.Fatal(err)
	}
	// Grown: the same view.
	got, err := Analyze(a, All(), opts(func() {
		f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.Write(make([]byte, 100))
			f.Close()
		}
	}))
	if err != nil || got.Conn.Conn.Index != want.Conn.Conn.Index || !same(got.Conn.Series.Segs[got.Dir], want.Conn.Series.Segs[want.Dir]) {
		t.Fatalf("grown between the passes: err %v, or another view", err)
	}
	// Replaced.
	_, err = Analyze(a, All(), opts(func() {
		if err := os.Rename(b, a); err != nil {
			t.Fatal(err)
		}
	}))
	var fe *capture.FrameError
	if !errors.As(err, &fe) || fe.File != a || !errors.Is(err, capture.ErrFileChanged) || !strings.Contains(err.Error(), "replaced between the two passes") {
		t.Fatalf("replaced between the passes: %v, want a FrameError naming %s wrapping ErrFileChanged", err, a)
	}
}

// TestPickTied: the counting pass counts the matching connections that
// carry as many payload bytes as the one it takes (the first), so that the
// note can say it was a tie (fresh-eyes trial: "the largest of 32" for one
// of 4 equal ones).
func TestPickTied(t *testing.T) {
	cp := &countPick{sel: All(), onKey: map[uint64][]int32{}}
	for i, b := range []int64{5, 9, 9, 3, 9, 12, 12} {
		r := &tcpanalysis.ConnResult{Summary: tcpanalysis.Summary{Conn: &flows.Conn{Index: i}}}
		r.Dir[0].Bytes = b
		cp.add(r, 0)
	}
	if cp.best.Conn.Index != 5 || cp.tied != 1 || cp.matched != 7 {
		t.Fatalf("best conn %d, tied %d, matched %d; want 5, 1, 7", cp.best.Conn.Index, cp.tied, cp.matched)
	}
	v := &View{File: "f", Conn: cp.best, Picked: true, Matched: 7, Tied: 1}
	if n := v.NoteAs("--conn"); !strings.Contains(n, "the largest of 7 matching, tied with 1 other of as many bytes (the first taken)") {
		t.Errorf("note %q", n)
	}
}
