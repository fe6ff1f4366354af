package export

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestAppendCSVAsEncodingCSV: FlowRow.AppendCSV writes what encoding/csv
// writes for FlowRow.CSV, file names that csv quotes included, and the
// record has one cell per column.
func TestAppendCSVAsEncodingCSV(t *testing.T) {
	w, hs := 14, 0.0125
	base := FlowRow{Conn: 3, AAddr: "10.0.0.1", APort: 40000, BAddr: "2001:db8::2", BPort: 443,
		StartS: 1.0000005, DurationS: 12.25, PktsAB: 9, BytesBA: 1 << 40, TputABKbps: 1234.5678, GoodputBA: -0.0004,
		Handshake: true, WScaleA: &w, WScaleSource: "handshake/syn-ack", HSSynAckAck: &hs, ReusedPorts: true, PEPBA: true, PMTUAB: 2,
		nums: flowNums{
			rtt:    [2][2]rttCols{{{n: 2, min: time.Microsecond, mean: 1500 * time.Microsecond, max: 3 * time.Millisecond}}, {{}, {n: 1, min: 7 * time.Second, mean: 7 * time.Second, max: 7 * time.Second}}},
			events: [7][2]int64{{1, 2}, {3, 4}, {}, {0, 9}},
			hsEv:   [2]tcpanalysis.Evidence{tcpanalysis.EvTSecr, tcpanalysis.EvAmbiguous}, negRTT: 5, icmp: [3][2]int64{{0, 1}}}}
	for _, file := range []string{"a.pcap", "", `\.`, " lead.pcap", "\tx", "a,b.pcap", `q"uote.pcap`, "line\nbreak", "cr\r.pcap", "\u00a0nbsp", "é.pcap", "x\u2028y"} {
		r := base
		r.File = file
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		rec := r.CSV()
		if len(rec) != len(FlowColumns) {
			t.Fatalf("%q: %d cells, want %d", file, len(rec), len(FlowColumns))
		}
		cw.Write(rec)
		cw.Flush()
		if got := string(r.AppendCSV([]byte("prefix;"))); got != "prefix;"+want.String() {
			t.Errorf("%q:\n got %q\nwant %q", file, got, "prefix;"+want.String())
		}
	}
	// Hand-checked cells of the base row.
	r := base
	r.File = "a.pcap"
	got := strings.Join(r.CSV(), ",")
	for _, cell := range []string{",1.000001,12.250000,9,", ",1234.568,0.000,0.000,-0.000,true,14,,handshake/syn-ack,", ",true,,0.013,2,0.001,1.500,3.000,0,,,,0,,,,1,7000.000,7000.000,7000.000,1,2,3,4,0,0,0,9,", ",tsecr,ambiguous,5,0,1,0,0,0,0,false,true,2,0"} {
		if !strings.Contains(got, cell) {
			t.Errorf("row %s\nlacks %s", got, cell)
		}
	}
}

// BenchmarkFlowRowCSV formats one flows CSV line (the streamed flows
// output's per-connection cost).
func BenchmarkFlowRowCSV(b *testing.B) {
	w, hs := 7, 0.5
	r := FlowRow{File: "/tmp/tcpviz-bench/short.pcap", Conn: 12345, AAddr: "10.1.2.3", APort: 40000, BAddr: "10.9.8.7", BPort: 80,
		StartS: 12.345678, DurationS: 0.5, PktsAB: 20, PktsBA: 18, BytesAB: 20000, TputABKbps: 320.5, Handshake: true, WScaleA: &w, WScaleB: &w,
		WScaleSource: "handshake", HSSynSynAck: &hs, HSSynAckAck: &hs,
		nums: flowNums{rtt: [2][2]rttCols{{{n: 9, min: time.Millisecond, mean: 2 * time.Millisecond, max: 3 * time.Millisecond}}}}}
	var line []byte
	for b.Loop() {
		line = r.AppendCSV(line[:0])
	}
}

// BenchmarkNewFlowRow builds one connection's flows row from its result.
func BenchmarkNewFlowRow(b *testing.B) {
	c := &flows.Conn{Index: 7, First: 1e9, Last: 2e9}
	c.Half[0].Addr = netip.MustParseAddrPort("10.1.2.3:40000")
	c.Half[1].Addr = netip.MustParseAddrPort("10.9.8.7:80")
	c.Half[0].WScale, c.Half[1].WScale = 7, 7
	r := &tcpanalysis.ConnResult{Summary: tcpanalysis.Summary{Conn: c}}
	r.Handshake.SynToSynAckOk, r.Handshake.SynAckToAckOk = true, true
	r.Dir[0].Bytes = 12345
	rep := &tcpanalysis.Report{}
	for b.Loop() {
		row := NewFlowRow("short.pcap", rep, r, false)
		_ = row
	}
}

// TestAppendCSVColumnOrder: with a distinct value in every column (by
// reflection over FlowRow's numeric, boolean and pointer fields, and every
// element of its RTT and event columns), AppendCSV and CSV give the same
// cells in the same order, one per column of FlowColumns.
func TestAppendCSVColumnOrder(t *testing.T) {
	var r FlowRow
	n := int64(10)
	next := func() int64 { n += 7; return n }
	v := reflect.ValueOf(&r).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.Int, reflect.Int64, reflect.Uint16:
			if f.Kind() == reflect.Uint16 {
				f.SetUint(uint64(next()))
			} else {
				f.SetInt(next())
			}
		case reflect.Float64:
			f.SetFloat(float64(next()) + 0.125)
		case reflect.Bool:
			f.SetBool(next()%2 == 1)
		case reflect.String:
			f.SetString(fmt.Sprintf("s%d", next()))
		}
	}
	w1, w2 := int(next()%15), int(next()%15)
	h1, h2 := float64(next())/8, float64(next())/8
	r.WScaleA, r.WScaleB, r.HSSynSynAck, r.HSSynAckAck = &w1, &w2, &h1, &h2
	for mi := range r.nums.rtt {
		for d := range r.nums.rtt[mi] {
			r.nums.rtt[mi][d] = rttCols{n: next(), min: time.Duration(next()) * time.Microsecond, mean: time.Duration(next()) * time.Microsecond, max: time.Duration(next()) * time.Microsecond}
		}
	}
	for ci := range r.nums.events {
		r.nums.events[ci] = [2]int64{next(), next()}
	}
	for ci := range r.nums.icmp {
		r.nums.icmp[ci] = [2]int64{next(), next()}
	}
	r.nums.dsack, r.nums.synRetx, r.nums.finRetx = [2]int64{next(), next()}, [2]int64{next(), next()}, [2]int64{next(), next()}
	r.nums.hsEv = [2]tcpanalysis.Evidence{tcpanalysis.EvTSecr, tcpanalysis.EvSingle}
	r.nums.negRTT = next()
	rec := r.CSV()
	if len(rec) != len(FlowColumns) {
		t.Fatalf("%d cells, want %d", len(rec), len(FlowColumns))
	}
	seen := map[string]string{}
	for i, c := range rec {
		if prev, dup := seen[c]; dup && c != "true" && c != "false" {
			t.Errorf("columns %s and %s both %q: the row does not tell them apart", prev, FlowColumns[i], c)
		}
		seen[c] = FlowColumns[i]
	}
	var want bytes.Buffer
	cw := csv.NewWriter(&want)
	cw.Write(rec)
	cw.Flush()
	if got := string(r.AppendCSV(nil)); got != want.String() {
		t.Errorf("AppendCSV\n%s\nCSV\n%s", got, want.String())
	}
}

// BenchmarkFlowsStreamCSV puts rows in index order through a CSV
// FlowsStream (the streamed flows --csv output's per-row cost).
func BenchmarkFlowsStreamCSV(b *testing.B) {
	w, hs := 7, 0.5
	r := FlowRow{File: "/tmp/tcpviz-bench/short.pcap", AAddr: "10.1.2.3", APort: 40000, BAddr: "10.9.8.7", BPort: 80,
		StartS: 12.345678, DurationS: 0.5, PktsAB: 20, PktsBA: 18, BytesAB: 20000, TputABKbps: 320.5, Handshake: true, WScaleA: &w, WScaleB: &w,
		WScaleSource: "handshake", HSSynSynAck: &hs, HSSynAckAck: &hs,
		nums: flowNums{rtt: [2][2]rttCols{{{n: 9, min: time.Millisecond, mean: 2 * time.Millisecond, max: 3 * time.Millisecond}}}}}
	st := NewFlowsStream(io.Discard, true)
	st.BeginFile(r.File)
	for b.Loop() {
		st.Put(&r)
		r.Conn++
	}
}

// TestEvidenceNamesPlain: no handshake evidence name is a cell csv would
// quote, so the flows CSV appends them as they are.
func TestEvidenceNamesPlain(t *testing.T) {
	for e := range 256 {
		if s := tcpanalysis.Evidence(e).String(); mayNeedQuotes(s) {
			t.Errorf("Evidence(%d) %q may need quotes", e, s)
		}
	}
}

// TestAppendCSVRepeats: cells AppendCSV copies from an equal cell before
// them (a direction's byte counts, goodput and throughput, an RTT's min,
// mean and max) are what encoding/csv writes for CSV, for equal and
// unequal neighbours, counts below 10, negative zero and NaN.
func TestAppendCSVRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func(vs ...int64) int64 { return vs[rng.IntN(len(vs))] }
	fl := []float64{0, math.Copysign(0, -1), math.NaN(), 1.0005, 12.5, -3.25, 1e300}
	durs := []time.Duration{0, 1, 999, 1500 * time.Microsecond, 7 * time.Second, -time.Millisecond}
	for range 20000 {
		a, b := pick(0, 5, 10, 37386, -12), pick(0, 9, 10, 37386, 1<<40)
		r := FlowRow{File: "r.pcap", Conn: 1, AAddr: "10.0.0.1", BAddr: "10.0.0.2",
			PktsAB: pick(a, b), PktsBA: pick(a, b), WireAB: pick(a, b, 11), WireBA: pick(a, b, 11), BytesAB: pick(a, b), BytesBA: pick(a, b),
			UniqueAB: pick(a, b), UniqueBA: pick(a, b), RetxBytesAB: pick(0, a, b), RetxBytesBA: pick(0, a, b), AckedAB: pick(a, b), AckedBA: pick(a, b),
			GoodBytesAB: pick(a, b), GoodBytesBA: pick(a, b),
			TputABKbps: fl[rng.IntN(len(fl))], TputBAKbps: fl[rng.IntN(len(fl))], GoodputAB: fl[rng.IntN(len(fl))], GoodputBA: fl[rng.IntN(len(fl))]}
		for mi := range r.nums.rtt {
			for d := range r.nums.rtt[mi] {
				r.nums.rtt[mi][d] = rttCols{n: pick(0, 1, 3), min: durs[rng.IntN(len(durs))], mean: durs[rng.IntN(len(durs))], max: durs[rng.IntN(len(durs))]}
			}
		}
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		cw.Write(r.CSV())
		cw.Flush()
		if got := string(r.AppendCSV(nil)); got != want.String() {
			t.Fatalf("AppendCSV\n%s\nCSV\n%s", got, want.String())
		}
	}
}
