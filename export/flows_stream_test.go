package export

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
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
			{File: `b,"quoted".pcap`, Conn: 0, AAddr: "192.168.1.1", APort: 443, BAddr: "192.168.1.200", BPort: 55555, DurationS: 12.25},
		},
	}
}

// TestFlowsStreamSameOutput: rows given in any order, one of them last,
// give WriteFlowsCSV's and WriteFlowsTable's bytes and the JSON encoding
// of the whole output, with the table and JSON rows spooled in memory or
// in a file (the second capture has fewer rows than the first, so its
// index reuses the first's).
func TestFlowsStreamSameOutput(t *testing.T) {
	files := streamRows()
	var ffs []FlowsFile
	for i, rows := range files {
		ff := FlowsFile{File: rows[0].File, Format: "pcap", Frames: int64(10 * (i + 1)), Segments: int64(9 * (i + 1)), Conns: rows, Warnings: []string{}}
		if i == 0 {
			ff.PEPNotes = []string{"conn 1: ACKs from a PEP"}
			ff.pepDirs = map[int]flows.Direction{1: flows.BtoA}
			ff.Warnings = []string{`a warning naming "conns": [] <&>`}
			ff.Stats = map[string]int{"frames": 10}
		}
		ffs = append(ffs, ff)
	}
	for _, format := range []FlowsFormat{FlowsCSV, FlowsTable, FlowsJSON} {
		for _, inFile := range []bool{false, true} {
			var want, got bytes.Buffer
			var err error
			switch format {
			case FlowsCSV:
				err = WriteFlowsCSV(&want, ffs)
			case FlowsTable:
				err = WriteFlowsTable(&want, ffs)
			case FlowsJSON:
				enc := json.NewEncoder(&want)
				enc.SetIndent("", "  ")
				err = enc.Encode(map[string]any{"schema": FlowsSchema, "files": ffs})
			}
			if err != nil {
				t.Fatal(err)
			}
			var spool Spool
			if inFile {
				f, err := os.CreateTemp(t.TempDir(), "rows")
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				spool = f
			}
			st := NewFlowsStreamAs(&got, format, spool)
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
				ff.Conns = nil
				if err := st.EndFile(&ff); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("format %d, spool in a file %v: streamed\n%s\nwant\n%s", format, inFile, got.String(), want.String())
			}
		}
	}
}

// TestFlowsStreamNoFiles: JSON with no capture is the encoding of an
// output without files.
func TestFlowsStreamNoFiles(t *testing.T) {
	var got bytes.Buffer
	st := NewFlowsStreamAs(&got, FlowsJSON, nil)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"files\": null,\n  \"schema\": \"" + FlowsSchema + "\"\n}\n"
	if got.String() != want {
		t.Errorf("got %q, want %q", got.String(), want)
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
	if st.waitN == 0 || len(st.ahead) != 2 || st.ahead[1] == 0 {
		t.Fatalf("row 1 before row 0: %d bytes waiting, %d rows ahead, want row 1's", st.waitN, len(st.ahead))
	}
	st.Put(&rows[0])
	st.Put(&rows[2])
	if st.waitN != 0 || len(st.ahead) != 0 || st.next != 3 {
		t.Errorf("after rows 1, 0, 2: %d bytes waiting, %d rows ahead, next %d; want 0, 0 and 3", st.waitN, len(st.ahead), st.next)
	}
}

// TestFlowsStreamManyRows: more rows than one spool write or read holds
// (spoolIO), given in reverse index order and with gaps, come out as the
// whole output's.
func TestFlowsStreamManyRows(t *testing.T) {
	var rows []FlowRow
	for i := 0; i < 3000; i++ {
		if i%7 == 3 {
			continue // no such row (an index a filter dropped)
		}
		rows = append(rows, FlowRow{File: "many.pcap", Conn: i, AAddr: "10.0.0.1", APort: uint16(i), BAddr: "10.0.0.2", BPort: 80,
			PktsAB: int64(i * i), DurationS: float64(i) / 7, RTT: map[string]any{"ack_ab": map[string]any{"n": i}}})
	}
	ff := FlowsFile{File: "many.pcap", Format: "pcap", Frames: 9000, Segments: 9000, Conns: rows, Warnings: []string{}}
	for _, format := range []FlowsFormat{FlowsTable, FlowsJSON} {
		var want, got bytes.Buffer
		if format == FlowsTable {
			if err := WriteFlowsTable(&want, []FlowsFile{ff}); err != nil {
				t.Fatal(err)
			}
		} else {
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(map[string]any{"schema": FlowsSchema, "files": []FlowsFile{ff}}); err != nil {
				t.Fatal(err)
			}
		}
		f, err := os.CreateTemp(t.TempDir(), "rows")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st := NewFlowsStreamAs(&got, format, f)
		st.BeginFile(ff.File)
		for i := len(rows) - 1; i >= 0; i-- {
			st.Put(&rows[i])
		}
		head := ff
		head.Conns = nil
		if err := st.EndFile(&head); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if st.size <= 2*spoolIO {
			t.Errorf("format %d: %d bytes spooled, want more than two writes of %d", format, st.size, spoolIO)
		}
		if got.String() != want.String() {
			t.Errorf("format %d: streamed output (%d bytes) differs from the whole output (%d bytes)", format, got.Len(), want.Len())
		}
	}
}

// TestFlowsStreamCSVSpills: CSV rows held back by an early connection that
// ends last go to the spool once those waiting in memory pass the budget,
// and come out in index order with the rows that waited in memory, as
// WriteFlowsCSV writes them; rows are written as soon as they can be,
// straight from the spool's unwritten buffer or from the file.
func TestFlowsStreamCSVSpills(t *testing.T) {
	var rows []FlowRow
	hs := 1.5
	for i := 0; i < 5000; i++ {
		rows = append(rows, FlowRow{File: "held.pcap", Conn: i, AAddr: "10.0.0.1", APort: uint16(i), BAddr: "10.0.0.2", BPort: 80, PktsAB: int64(3 * i), HSSynSynAck: &hs})
	}
	ff := FlowsFile{File: "held.pcap", Format: "pcap", Conns: rows}
	var want bytes.Buffer
	if err := WriteFlowsCSV(&want, []FlowsFile{ff, ff}); err != nil {
		t.Fatal(err)
	}
	for _, inFile := range []bool{false, true} {
		var got bytes.Buffer
		var spool Spool
		if inFile {
			f, err := os.CreateTemp(t.TempDir(), "rows")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			spool = f
		}
		st := NewFlowsStreamAs(&got, FlowsCSV, spool)
		st.budget = 10 << 10
		for range 2 {
			st.BeginFile(ff.File)
			// Row 0 and row 2000 end last; the rest in order.
			for i := range rows {
				if c := rows[i].Conn; c != 0 && c != 2000 {
					st.Put(&rows[i])
				}
			}
			if st.size == 0 || st.waitN > st.budget {
				t.Errorf("spool in a file %v: %d bytes spooled, %d waiting in memory; want some spooled, at most %d waiting", inFile, st.size, st.waitN, st.budget)
			}
			before := got.Len()
			st.Put(&rows[0])
			if st.next != 2000 {
				t.Errorf("spool in a file %v: after row 0, next row %d, want 2000", inFile, st.next)
			}
			st.bw.Flush()
			if got.Len() == before {
				t.Errorf("spool in a file %v: row 0 wrote nothing", inFile)
			}
			st.Put(&rows[2000])
			if err := st.EndFile(&FlowsFile{File: ff.File}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("spool in a file %v: streamed CSV (%d bytes) differs from WriteFlowsCSV's (%d bytes)", inFile, got.Len(), want.Len())
		}
	}
}

// TestFlowsStreamDropFile: with HoldRows, the rows of a capture dropped
// part-way (DropFile: it could not be read) appear in no format, and the
// others' output is byte for byte what it is without the dropped capture —
// the CSV too, whose rows now wait for their capture's end.
func TestFlowsStreamDropFile(t *testing.T) {
	files := streamRows()
	var ffs []FlowsFile
	for i, rows := range files {
		ffs = append(ffs, FlowsFile{File: rows[0].File, Format: "pcap", Frames: int64(10 * (i + 1)), Segments: int64(9 * (i + 1)), Conns: rows, Warnings: []string{}})
	}
	for _, format := range []FlowsFormat{FlowsCSV, FlowsTable, FlowsJSON} {
		var want, got bytes.Buffer
		var err error
		switch format {
		case FlowsCSV:
			err = WriteFlowsCSV(&want, ffs)
		case FlowsTable:
			err = WriteFlowsTable(&want, ffs)
		case FlowsJSON:
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			err = enc.Encode(map[string]any{"schema": FlowsSchema, "files": ffs})
		}
		if err != nil {
			t.Fatal(err)
		}
		st := NewFlowsStreamAs(&got, format, nil)
		st.HoldRows()
		put := func(file string, rows []FlowRow) {
			st.BeginFile(file)
			for k := len(rows) - 1; k >= 0; k-- {
				r := rows[k]
				r.File = file
				st.Put(&r)
			}
		}
		put("bad.pcap", files[0]) // read part-way, then failed
		st.DropFile()
		for i, rows := range files {
			put(rows[0].File, rows)
			if i == 0 {
				put("bad2.pcap", files[1])
				st.DropFile()
				put(rows[0].File, rows) // a's rows again: the drop left none
			}
			ff := ffs[i]
			ff.Conns = nil
			if err := st.EndFile(&ff); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("format %d: streamed\n%s\nwant\n%s", format, got.String(), want.String())
		}
	}
}

// TestFlowsStreamCSVOutOfOrder: rows given in the order connections end
// (each some random time after it starts, a few much later), with skipped
// indexes among them, come out as WriteFlowsCSV writes the rows given,
// whether the waiting rows fit the memory budget or spill to the spool;
// the memory they wait in stays under twice the budget (compactMem).
func TestFlowsStreamCSVOutOfOrder(t *testing.T) {
	for _, long := range []int{500, 0} {
		flowsStreamOutOfOrder(t, long)
	}
}

// flowsStreamOutOfOrder is TestFlowsStreamCSVOutOfOrder with one
// connection in long (none for 0) ending much later than it would.
func flowsStreamOutOfOrder(t *testing.T, long int) {
	rng := rand.New(rand.NewPCG(5, uint64(long)))
	const n = 20000
	type ev struct{ end, i int }
	var evs []ev
	var kept []FlowRow
	skip := map[int]bool{}
	hs := 2.25
	for i := range n {
		end := i + rng.IntN(64)
		if long > 0 && rng.IntN(long) == 0 {
			end += rng.IntN(n) // a long connection
		}
		evs = append(evs, ev{end, i})
		if rng.IntN(10) == 0 {
			skip[i] = true
			continue
		}
		kept = append(kept, FlowRow{File: "ooo.pcap", Conn: i, AAddr: "10.0.0.1", APort: uint16(i), BAddr: "10.0.0.2", BPort: 80,
			PktsAB: int64(rng.IntN(1 << rng.IntN(40))), DurationS: rng.Float64() * 100, HSSynSynAck: &hs})
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return a.end - b.end })
	byConn := map[int]*FlowRow{}
	for i := range kept {
		byConn[kept[i].Conn] = &kept[i]
	}
	var want bytes.Buffer
	if err := WriteFlowsCSV(&want, []FlowsFile{{File: "ooo.pcap", Conns: kept}}); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{waitBudget, 256 << 10} {
		var got bytes.Buffer
		st := NewFlowsStreamAs(&got, FlowsCSV, nil)
		st.budget = budget
		st.BeginFile("ooo.pcap")
		for _, e := range evs {
			if skip[e.i] {
				st.Skip(e.i)
			} else {
				st.Put(byConn[e.i])
			}
			if cap(st.mem) > 2*budget {
				t.Fatalf("budget %d: mem of %d bytes for %d waiting", budget, cap(st.mem), st.waitN)
			}
		}
		if err := st.EndFile(&FlowsFile{File: "ooo.pcap"}); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("budget %d: streamed CSV (%d bytes) differs from WriteFlowsCSV's (%d bytes)", budget, got.Len(), want.Len())
		}
		if long > 0 && budget < waitBudget && st.size == 0 {
			t.Errorf("budget %d: nothing spooled", budget)
		}
	}
}
