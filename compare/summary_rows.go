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
// (unknown, or not applicable). The ratios to the first run are left to
// the reader. Errors: w's.
func WriteSummaryCSV(w io.Writer, runs []Run, rows []Row) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"label", "metric", "unit", "value"})
	for _, row := range rows {
		for i, v := range row.Values {
			cw.Write([]string{runs[i].Label, row.Metric, string(row.Unit), summaryValue(v)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSummaryJSON is WriteSummaryCSV as one JSON object: {"schema",
// "rows": [{"label", "metric", "unit", "value"}]}, value null where the
// CSV's is empty. Errors: w's.
func WriteSummaryJSON(w io.Writer, runs []Run, rows []Row) error {
	type jrow struct {
		Label  string   `json:"label"`
		Metric string   `json:"metric"`
		Unit   string   `json:"unit"`
		Value  *float64 `json:"value"`
	}
	out := struct {
		Schema string `json:"schema"`
		Rows   []jrow `json:"rows"`
	}{Schema: SummarySchema, Rows: []jrow{}}
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
