package export

import (
	"bytes"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// streamRows are three rows of two files, with IPv6, a PEP mark and
// unknown window scales.
func streamRows() [][]FlowRow {
	w := 7
	hs := 1.5
	return [][]FlowRow{
		{
			{File: "a.pcap", Conn: 0, AAddr: "10.0.0.1", APort: 40000, BAddr: "10.0.0.2", BPort: 80, PktsAB: 12, BytesAB: 14480, WScaleA: &w, WScaleB: &w, Handshake: true, HSSynSynAck: &hs,
				nums: flowNums{rtt: [2][2]rttCols{{{n: 3, min: 1500 * time.Microsecond, mean: 2 * time.Millisecond, max: 3 * time.Millisecond}}}, hsEv: [2]tcpanalysis.Evidence{tcpanalysis.EvSingle}}},
			{File: "a.pcap", Conn: 1, AAddr: "fe80::1", APort: 1, BAddr: "fe80::2", BPort: 2, PktsBA: 3, GoodputBA: 12.5, PEPBA: true},
			{File: "a.pcap", Conn: 2, AAddr: "10.0.0.3", APort: 5, BAddr: "10.0.0.2", BPort: 80, RetxBytesAB: 1448},
		},
		{
			{File: "b.pcap", Conn: 0, AAddr: "192.168.1.1", APort: 443, BAddr: "192.168.1.200", BPort: 55555, DurationS: 12.25},
		},
	}
}

// TestFlowsStreamSameOutput: rows given in any order, one of them last,
// give WriteFlowsCSV's and WriteFlowsTable's bytes.
func TestFlowsStreamSameOutput(t *testing.T) {
	files := streamRows()
	var ffs []FlowsFile
	for i, rows := range files {
		ff := FlowsFile{File: rows[0].File, Format: "pcap", Frames: int64(10 * (i + 1)), Segments: int64(9 * (i + 1)), Conns: rows}
		if i == 0 {
			ff.PEPNotes = []string{"conn 1: ACKs from a PEP"}
			ff.pepDirs = map[int]flows.Direction{1: flows.BtoA}
		}
		ffs = append(ffs, ff)
	}
	for _, asCSV := range []bool{true, false} {
		var want, got bytes.Buffer
		var err error
		if asCSV {
			err = WriteFlowsCSV(&want, ffs)
		} else {
			err = WriteFlowsTable(&want, ffs)
		}
		if err != nil {
			t.Fatal(err)
		}
		st := NewFlowsStream(&got, asCSV)
		for i, rows := range files {
			st.BeginFile(rows[0].File)
			order := []int{2, 0, 1}[:len(rows)]
			if len(rows) == 1 {
				order = []int{0}
			}
			for _, k := range order {
				if len(rows) > 1 && k == 1 {
					continue
				}
				r := rows[k]
				st.Put(&r)
			}
			if len(rows) > 1 {
				r := rows[1]
				st.Put(&r)
			}
			ff := ffs[i]
			if err := st.EndFile(&ff); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("csv %v: streamed\n%s\nwant\n%s", asCSV, got.String(), want.String())
		}
	}
}

// TestFlowsStreamWritesEarly: a CSV row is written as soon as the rows
// before it are, not at the end of the file.
func TestFlowsStreamWritesEarly(t *testing.T) {
	var got bytes.Buffer
	st := NewFlowsStream(&got, true)
	st.BeginFile("a.pcap")
	rows := streamRows()[0]
	st.Put(&rows[1])
	if len(st.wait) != 1 {
		t.Fatalf("row 1 before row 0: %d rows waiting, want 1", len(st.wait))
	}
	st.Put(&rows[0])
	st.Put(&rows[2])
	if len(st.wait) != 0 || st.next != 3 {
		t.Errorf("after rows 1, 0, 2: %d rows waiting, next %d; want 0 and 3", len(st.wait), st.next)
	}
}
