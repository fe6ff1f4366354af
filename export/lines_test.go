package export

import (
	"bytes"
	"encoding/csv"
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tcpviz/tcpviz/query"
)

// csvCaptures are the repository's captures and, when present, ../shared's
// corpus and cases.
func csvCaptures(t *testing.T) []string {
	var out []string
	for _, g := range []string{"../testdata/synthetic/*.pcap", "../testdata/sat/*/*.pcap"} {
		m, _ := filepath.Glob(g)
		out = append(out, m...)
	}
	// ../shared's, when present (the test runs without them).
	for _, g := range []string{"corpus/*.pcap", "corpus/*.pcap.gz", "cases/*.pcap"} {
		m, _ := filepath.Glob(filepath.Join("../../shared", g))
		out = append(out, m...)
	}
	if len(out) < 4 {
		t.Fatalf("found %d captures", len(out))
	}
	return out
}

// TestCSVWritersByteForByte: the seq and window CSVs, formatted as bytes
// on several goroutines (writeLines), are byte for byte what encoding/csv
// writes from the rows' strings, for every connection and both directions
// of the repository's and ../shared's captures (the satellite runs hold
// more rows than several chunks).
func TestCSVWritersByteForByte(t *testing.T) {
	rows, maxRows := 0, 0
	for _, path := range csvCaptures(t) {
		all, err := query.Analyze(path, query.All(), query.Options{})
		if err != nil {
			continue
		}
		for i := range all.Report.Conns {
			for _, dir := range []query.Dir{query.AB, query.BA} {
				v, err := query.FromReport(all.Report, query.Selection{Conn: i, Dir: dir}, query.Options{})
				if err != nil {
					t.Fatal(err)
				}
				// seq: the strings of each row through encoding/csv.
				var want bytes.Buffer
				cw := csv.NewWriter(&want)
				cw.Write([]string{"conn", "dir", "type", "t_s", "conn_t_s", "frame", "start", "end", "class", "flags"})
				n := 0
				for r := range SeqPoints(v) {
					end := ""
					if r.known {
						end = strconv.FormatInt(r.End, 10)
					}
					cw.Write([]string{strconv.Itoa(v.Conn.Conn.Index), v.Dir.String(), r.Type, strconv.FormatFloat(r.TS, 'f', 6, 64), strconv.FormatFloat(r.ConnTS, 'f', 6, 64),
						strconv.FormatInt(r.Frame, 10), strconv.FormatInt(r.Start, 10), end, r.Class, r.Flags})
					n++
				}
				cw.Flush()
				var got bytes.Buffer
				if err := WriteSeqCSV(&got, v, SeqPoints(v)); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("%s conn %d %v: seq CSV of %d rows differs from encoding/csv's", path, i, dir, n)
				}
				// window: Table.CSV against the generic writer.
				tab := Window(v)
				var wgot, wwant bytes.Buffer
				if err := tab.WriteRows(&wgot, false); err != nil {
					t.Fatal(err)
				}
				tab.CSV = nil
				if err := tab.WriteRows(&wwant, false); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(wgot.Bytes(), wwant.Bytes()) {
					t.Fatalf("%s conn %d %v: window CSV differs from encoding/csv's", path, i, dir)
				}
				rows += n
				maxRows = max(maxRows, n, bytes.Count(wgot.Bytes(), []byte("\n")))
			}
		}
	}
	if maxRows < 3*linesChunk {
		t.Fatalf("the largest output has %d rows, want several chunks of %d", maxRows, linesChunk)
	}
	t.Logf("%d seq rows compared, largest output %d rows", rows, maxRows)
}

// failAfter fails every write after its first n bytes.
type failAfter struct {
	n       int
	written int
}

var errFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.written+len(p) > f.n {
		return 0, errFull
	}
	f.written += len(p)
	return len(p), nil
}

// TestWriteLinesError: a writer's error ends writeLines with that error,
// and the rows are left early (no goroutine waits forever).
func TestWriteLinesError(t *testing.T) {
	for _, n := range []int{0, 10, 100 << 10} {
		pulled := 0
		rows := func(yield func(int) bool) {
			for i := range 10 * 1000 * linesChunk {
				pulled++
				if !yield(i) {
					return
				}
			}
		}
		err := writeLines(&failAfter{n: n}, []byte("head\n"), rows, func(b []byte, i *int) []byte { return append(strconv.AppendInt(b, int64(*i), 10), '\n') })
		if !errors.Is(err, errFull) {
			t.Fatalf("after %d bytes: error %v, want %v", n, err, errFull)
		}
		if pulled >= 10*1000*linesChunk {
			t.Errorf("after %d bytes: every row was pulled", n)
		}
	}
	// And the lines in order otherwise.
	var b bytes.Buffer
	want := []byte("h\n")
	for i := range 5*linesChunk + 7 {
		want = append(strconv.AppendInt(want, int64(i), 10), '\n')
	}
	rows := func(yield func(int) bool) {
		for i := range 5*linesChunk + 7 {
			if !yield(i) {
				return
			}
		}
	}
	if err := writeLines(&b, []byte("h\n"), rows, func(b []byte, i *int) []byte { return append(strconv.AppendInt(b, int64(*i), 10), '\n') }); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Error("lines out of order")
	}
}
