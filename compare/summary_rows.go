package compare

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// SummarySchema names the rows of WriteSummaryCSV and WriteSummaryJSON
// (docs/schema.md#compare-summary).
const SummarySchema = "tcpviz.compare-summary/1"

// WriteSummaryCSV writes the summary table (Summary's rows) in long form,
// one row per metric and run: label, metric, unit, value — the value at
// full precision in the row's unit, empty where the table prints "–"
// (unknown, or not applicable) — then where it was measured: the run's
// file (the client side of a pair), server file (a pair's, else empty),
// connection, data direction, the reference point used (query.Ref: a run
// without a bulk segment falls back), and the window's from_s and to_s
// after it (to_s empty: to the end). The ratios to the first run are
// left to the reader. Errors: w's.
func WriteSummaryCSV(w io.Writer, runs []Run, rows []Row) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"label", "metric", "unit", "value", "file", "server_file", "conn", "dir", "ref", "from_s", "to_s"})
	for _, row := range rows {
		for i, v := range row.Values {
			r := runs[i]
			to := ""
			if r.To > 0 {
				to = strconv.FormatFloat(r.To.Seconds(), 'f', -1, 64)
			}
			cw.Write([]string{r.Label, row.Metric, string(row.Unit), summaryValue(v), shown(r.File), shown(r.ServerFile),
				strconv.Itoa(r.Result.Conn.Index), r.Dir.String(), r.RefUsed.String(), strconv.FormatFloat(r.From.Seconds(), 'f', -1, 64), to})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSummaryJSON is WriteSummaryCSV as one JSON object: {"schema",
// "runs": [{"label", "file", "server_file", "conn", "dir", "ref",
// "from_s", "to_s"}], "rows": [{"label", "metric", "unit", "value"}]},
// value null where the CSV's is empty, to_s null for "to the end".
// Errors: w's.
func WriteSummaryJSON(w io.Writer, runs []Run, rows []Row) error {
	type jrun struct {
		Label      string   `json:"label"`
		File       string   `json:"file"`
		ServerFile string   `json:"server_file,omitempty"`
		Conn       int      `json:"conn"`
		Dir        string   `json:"dir"`
		Ref        string   `json:"ref"`
		From       float64  `json:"from_s"`
		To         *float64 `json:"to_s"`
	}
	type jrow struct {
		Label  string   `json:"label"`
		Metric string   `json:"metric"`
		Unit   string   `json:"unit"`
		Value  *float64 `json:"value"`
	}
	out := struct {
		Schema string `json:"schema"`
		Runs   []jrun `json:"runs"`
		Rows   []jrow `json:"rows"`
	}{Schema: SummarySchema, Rows: []jrow{}}
	for _, r := range runs {
		jr := jrun{Label: r.Label, File: shown(r.File), ServerFile: shown(r.ServerFile), Conn: r.Result.Conn.Index, Dir: r.Dir.String(), Ref: r.RefUsed.String(), From: r.From.Seconds()}
		if r.To > 0 {
			to := r.To.Seconds()
			jr.To = &to
		}
		out.Runs = append(out.Runs, jr)
	}
	for _, row := range rows {
		for i, v := range row.Values {
			r := jrow{Label: runs[i].Label, Metric: row.Metric, Unit: string(row.Unit)}
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				r.Value = &v
			}
			out.Rows = append(out.Rows, r)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func summaryValue(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
