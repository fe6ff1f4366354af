package export

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/tcpviz/tcpviz/campaign"
)

// GoodputSchema versions the per-flow goodput output (docs/schema.md#goodput).
const GoodputSchema = "tcpviz.goodput/4"

// GoodputFixed are the leading columns; label columns follow, then the
// trailing columns.
var (
	GoodputFixed    = []string{"file", "conn", "src", "sport", "dst", "dport", "first_s", "last_s", "bytes", "goodput_kbps"}
	GoodputTrailing = []string{"interval_s", "run", "vantage", "captures", "interval_from", "capture_warnings", "shard"}
)

// GoodputHeader is the goodput CSV header: the fixed columns, the label
// columns, the trailing columns.
func GoodputHeader(labelNames []string) []string {
	return append(append(append([]string{}, GoodputFixed...), labelNames...), GoodputTrailing...)
}

// GoodputRecord is row r as CSV fields, in GoodputHeader order.
func GoodputRecord(r campaign.FlowRow, labelNames []string) []string {
	rec := []string{r.File, strconv.Itoa(r.Conn), r.Src, strconv.Itoa(int(r.SPort)), r.Dst, strconv.Itoa(int(r.DPort)),
		strconv.FormatFloat(r.FirstS, 'f', 6, 64), strconv.FormatFloat(r.LastS, 'f', 6, 64),
		strconv.FormatInt(r.Bytes, 10), strconv.FormatFloat(r.Kbps, 'f', 3, 64)}
	for _, n := range labelNames {
		rec = append(rec, r.Labels[n])
	}
	// interval_s with every digit needed to read back the same float: a
	// reader recomputes goodput_kbps (rounded to 3 decimals for reading)
	// exactly from bytes and interval_s (campaign.Kbps; trial13 A7).
	return append(rec, strconv.FormatFloat(r.IntervalS, 'f', -1, 64), r.RunKey, r.Vantage.String(), strconv.Itoa(r.Captures), string(r.Source), strconv.Itoa(r.CaptureWarnings), r.Shard.String())
}

// WriteGoodputJSON writes the rows as the goodput JSON document, with the
// reader's warnings per capture (file → warnings; may be nil).
func WriteGoodputJSON(w io.Writer, rows []campaign.FlowRow, labelNames []string, warned map[string][]string) error {
	header := GoodputHeader(labelNames)
	var out []map[string]any
	for _, r := range rows {
		rec := GoodputRecord(r, labelNames)
		m := map[string]any{}
		for i, h := range header {
			m[h] = rec[i]
		}
		for _, k := range []string{"conn", "sport", "dport", "bytes", "captures", "capture_warnings"} {
			m[k], _ = strconv.ParseInt(m[k].(string), 10, 64)
		}
		for _, k := range []string{"first_s", "last_s", "goodput_kbps", "interval_s"} {
			m[k], _ = strconv.ParseFloat(m[k].(string), 64)
		}
		out = append(out, m)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"schema": GoodputSchema, "labels": labelNames, "flows": out, "capture_warnings": warned})
}

// WriteGoodputCSV writes the rows as CSV with a header.
func WriteGoodputCSV(w io.Writer, rows []campaign.FlowRow, labelNames []string) error {
	header := GoodputHeader(labelNames)
	cw := csv.NewWriter(w)
	cw.Write(header)
	for _, r := range rows {
		cw.Write(GoodputRecord(r, labelNames))
	}
	cw.Flush()
	return cw.Error()
}

// WriteGoodputTable prints the rows as an aligned table.
func WriteGoodputTable(w io.Writer, rows []campaign.FlowRow, labelNames []string) error {
	header := GoodputHeader(labelNames)
	// The human table: the CSV columns without interval_s, run and shard.
	cut := func(rec []string) []string {
		n, t := len(rec), len(GoodputTrailing)
		return append(append([]string{}, rec[:n-t]...), rec[n-t+2:n-1]...)
	}
	recs := [][]string{cut(header)}
	for _, r := range rows {
		rec := GoodputRecord(r, labelNames)
		if rec[0] == "" {
			rec[0] = "–" // a declared flow no capture holds
		} else {
			rec[0] = filepath.Base(rec[0])
			if r.CaptureWarnings > 0 {
				rec[0] += " (!)" // the reader warned about it (standard error)
			}
		}
		recs = append(recs, cut(rec))
	}
	return WriteAligned(w, recs)
}

// WriteGoodputParquet writes the rows with the same columns as the CSV,
// typed: integers as INT64, times and rates as DOUBLE, the rest as strings.
func WriteGoodputParquet(w io.Writer, rows []campaign.FlowRow, labelNames []string) error {
	g := parquet.Group{
		"file": parquet.String(), "conn": parquet.Leaf(parquet.Int64Type), "src": parquet.String(),
		"sport": parquet.Leaf(parquet.Int64Type), "dst": parquet.String(), "dport": parquet.Leaf(parquet.Int64Type),
		"first_s": parquet.Leaf(parquet.DoubleType), "last_s": parquet.Leaf(parquet.DoubleType),
		"bytes": parquet.Leaf(parquet.Int64Type), "goodput_kbps": parquet.Leaf(parquet.DoubleType),
		"interval_s": parquet.Leaf(parquet.DoubleType), "run": parquet.String(), "vantage": parquet.String(),
		"captures": parquet.Leaf(parquet.Int64Type), "interval_from": parquet.String(),
		"capture_warnings": parquet.Leaf(parquet.Int64Type), "shard": parquet.String(),
	}
	for _, n := range labelNames {
		if _, clash := g[n]; clash {
			return fmt.Errorf("label %q clashes with a goodput column", n)
		}
		g[n] = parquet.String()
	}
	pw := parquet.NewWriter(w, parquet.NewSchema("goodput", g))
	for _, r := range rows {
		m := map[string]any{
			"file": r.File, "conn": int64(r.Conn), "src": r.Src, "sport": int64(r.SPort), "dst": r.Dst, "dport": int64(r.DPort),
			"first_s": r.FirstS, "last_s": r.LastS, "bytes": r.Bytes, "goodput_kbps": r.Kbps,
			"interval_s": r.IntervalS, "run": r.RunKey, "vantage": r.Vantage.String(), "captures": int64(r.Captures),
			"interval_from": string(r.Source), "capture_warnings": int64(r.CaptureWarnings), "shard": r.Shard.String(),
		}
		for _, n := range labelNames {
			m[n] = r.Labels[n]
		}
		if err := pw.Write(m); err != nil {
			return err
		}
	}
	return pw.Close()
}

// ReadGoodputCSV reads rows written by 'tcpviz goodput --csv'. Each row's
// Kbps is recomputed from bytes and interval_s (campaign.Kbps), the very
// value goodput had, not the 3-decimal goodput_kbps column, so that
// 'tcpviz stats' prints goodput's tables digit for digit.
func ReadGoodputCSV(path string) ([]campaign.FlowRow, error) {
	rows, _, err := ReadGoodputCSVSources(path)
	return rows, err
}

// ReadGoodputCSVSources is ReadGoodputCSV that also returns where each row
// was read (the file and the line its record starts on).
func ReadGoodputCSVSources(path string) ([]campaign.FlowRow, []campaign.RowSource, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	cr := csv.NewReader(fh)
	head, err := cr.Read()
	if err == io.EOF {
		return nil, nil, fmt.Errorf("%s: empty", path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	head = append([]string{}, head...)
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	later := []string{"interval_from", "capture_warnings", "shard"} // absent before tcpviz.goodput/2, /3, /4
	for _, h := range append(append([]string{}, GoodputFixed...), GoodputTrailing...) {
		if _, ok := col[h]; !ok && !slices.Contains(later, h) {
			return nil, nil, fmt.Errorf("%s: no column %q: not a 'tcpviz goodput --csv' file", path, h)
		}
	}
	trailing := len(GoodputTrailing)
	for _, h := range later {
		if _, ok := col[h]; !ok {
			trailing--
		}
	}
	labels := head[len(GoodputFixed) : len(head)-trailing]
	var rows []campaign.FlowRow
	var srcs []campaign.RowSource
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(head) {
			return nil, nil, fmt.Errorf("%s: line %d: %d fields, header has %d", path, line, len(rec), len(head))
		}
		num := func(k string) float64 { v, _ := strconv.ParseFloat(rec[col[k]], 64); return v }
		r := campaign.FlowRow{File: rec[col["file"]], RunKey: rec[col["run"]], Src: rec[col["src"]], Dst: rec[col["dst"]],
			Conn: int(num("conn")), SPort: uint16(num("sport")), DPort: uint16(num("dport")),
			FirstS: num("first_s"), LastS: num("last_s"), Bytes: int64(num("bytes")), Kbps: num("goodput_kbps"),
			IntervalS: num("interval_s"), Captures: int(num("captures")),
			Labels: map[string]string{}}
		if r.IntervalS > 0 {
			r.Kbps = campaign.Kbps(r.Bytes, r.IntervalS)
		}
		if i, ok := col["vantage"]; ok {
			if r.Vantage, err = campaign.ParseVantage(rec[i]); err != nil {
				return nil, nil, fmt.Errorf("%s: line %d: %w", path, line, err)
			}
		}
		if i, ok := col["interval_from"]; ok {
			r.Source = campaign.IntervalSource(rec[i])
		}
		if i, ok := col["capture_warnings"]; ok {
			r.CaptureWarnings, _ = strconv.Atoi(rec[i])
		}
		if i, ok := col["shard"]; ok {
			if r.Shard, err = campaign.ParseShard(rec[i]); err != nil {
				return nil, nil, fmt.Errorf("%s: line %d: %w", path, line, err)
			}
		}
		for _, l := range labels {
			r.Labels[l] = rec[col[l]]
		}
		rows = append(rows, r)
		srcs = append(srcs, campaign.RowSource{Name: path, Line: line})
	}
	return rows, srcs, nil
}
