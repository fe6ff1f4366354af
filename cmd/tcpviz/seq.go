package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// seqSchema versions the seq CSV/JSON output (docs/schema.md#seq).
const seqSchema = "tcpviz.seq/1"

func init() {
	addCommand(func(e *env) *cobra.Command {
		var af analysisFlags
		var cf connFlags
		var from, to float64
		var out string
		var pepMode bool
		var pathRTT time.Duration
		c := &cobra.Command{
			Use:   "seq FILE",
			Short: "draw the time-sequence (Stevens) graph of one connection",
			Long: `seq draws the time-sequence graph of one direction of one connection, in
tcptrace's visual language: data segments as vertical bars (retransmissions red,
out-of-order blue, SYN/FIN orange), the cumulative-ACK line (green), the
receive-window line ack + rwnd (olive) and SACK blocks (purple). x is seconds
since the connection's first packet, y bytes relative to the ISN.

The output format follows the -o extension: .png, .svg, .pdf (the figure),
.csv or .json (the points). Without -o it writes FILE.connN.DIR.seq.png in the
current directory and prints the path.`,
			Example: `  tcpviz seq run.pcap
  tcpviz seq run.pcap --conn 2 --dir b2a --from 0 --to 5 -o seq.svg
  tcpviz seq run.pcap --port 5201 -o seq.csv`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if from < 0 || (to > 0 && to <= from) {
					return fmt.Errorf("--from %g --to %g: want 0 ≤ from < to", from, to)
				}
				rep, r, d, err := e.analyzeOne(args[0], &af, &cf)
				if err != nil {
					return err
				}
				if out == "" {
					out = fmt.Sprintf("%s.conn%d.%s.seq.png", strings.TrimSuffix(filepath.Base(args[0]), ".gz"), r.Conn.Index, d)
					if args[0] == "-" {
						out = fmt.Sprintf("stdin.conn%d.%s.seq.png", r.Conn.Index, d)
					}
				}
				if isHTML(out) {
					return e.htmlOne(out, rep, r, d, "seq")
				}
				o := plot.TimeSeqOptions{Dir: d, From: secs(from), To: secs(to), Run: e.runName(args[0])}
				if !inRange(r, o) {
					fmt.Fprintf(e.stderr, "warning: conn %d has no data segment or ACK between --from %g and --to %g s\n", r.Conn.Index, from, to)
				}
				st, err := e.fig.style()
				if err != nil {
					return err
				}
				if err := writeSeq(out, rep, r, o, st); err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, out)
				pepNote(e.stderr, r, d)
				if pepMode {
					return e.pepOne(args[0], r, d, pathRTT)
				}
				return nil
			},
		}
		af.register(c)
		cf.register(c)
		e.addFigFlags(c)
		c.Flags().Float64Var(&from, "from", 0, "start of the x range, seconds since the connection's first packet")
		c.Flags().Float64Var(&to, "to", 0, "end of the x range, seconds (0: the end)")
		c.Flags().StringVarP(&out, "output", "o", "", "output file: .png, .svg, .pdf, .csv, .json or .html (the interactive report)")
		c.Flags().BoolVar(&pepMode, "pep", false, "also print the evidence for or against a split-TCP PEP on this connection (see 'tcpviz rtt --help')")
		c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known, for --pep")
		return c
	})
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// seqRow is one point of the seq CSV/JSON output (docs/schema.md#seq).
type seqRow struct {
	Type  string  `json:"type"` // data, ack or sack
	TS    float64 `json:"t_s"`  // seconds since the connection's first packet
	Frame int64   `json:"frame"`
	Start int64   `json:"start"` // data: first relative seq; ack: ack; sack: left edge
	End   int64   `json:"end"`   // data: end; ack: window edge ack+rwnd (empty/null if unknown); sack: right edge
	Class string  `json:"class"` // data: new, retransmitted, out_of_order; ack: window_known / window_unknown
	Flags string  `json:"flags"`
	known bool
}

func seqRows(r *tcpanalysis.ConnResult, o plot.TimeSeqOptions) []seqRow {
	t0 := r.Conn.First
	in := func(t capture.Timestamp) bool {
		dt := t.Sub(t0)
		return dt >= o.From && (o.To <= 0 || dt <= o.To)
	}
	var rows []seqRow
	d := o.Dir
	for _, s := range r.Series.Segs[d] {
		if in(s.Time) {
			rows = append(rows, seqRow{"data", s.Time.Sub(t0).Seconds(), s.Frame, s.Start, s.End, s.Kind.String(), s.Flags.String(), true})
		}
	}
	for _, a := range r.Series.Acks[d] {
		if in(a.Time) {
			cl := "window_known"
			if !a.WindowKnown {
				cl = "window_unknown"
			}
			rows = append(rows, seqRow{"ack", a.Time.Sub(t0).Seconds(), a.Frame, a.Ack, a.Ack + a.Window, cl, "", a.WindowKnown})
		}
	}
	for _, s := range r.Series.SACKs[d] {
		if in(s.Time) {
			rows = append(rows, seqRow{"sack", s.Time.Sub(t0).Seconds(), s.Frame, s.Left, s.Right, "", "", true})
		}
	}
	// Frame order, data before ACK info of the same frame.
	sortRows(rows)
	return rows
}

func sortRows(rows []seqRow) {
	rank := map[string]int{"data": 0, "ack": 1, "sack": 2}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Frame != rows[j].Frame {
			return rows[i].Frame < rows[j].Frame
		}
		return rank[rows[i].Type] < rank[rows[j].Type]
	})
}

// inRange reports whether any segment or ACK of the plotted direction falls
// in the --from/--to range.
func inRange(r *tcpanalysis.ConnResult, o plot.TimeSeqOptions) bool {
	t0 := r.Conn.First
	in := func(t capture.Timestamp) bool {
		dt := t.Sub(t0)
		return dt >= o.From && (o.To <= 0 || dt <= o.To)
	}
	for _, s := range r.Series.Segs[o.Dir] {
		if in(s.Time) {
			return true
		}
	}
	for _, a := range r.Series.Acks[o.Dir] {
		if in(a.Time) {
			return true
		}
	}
	return false
}

func writeSeq(out string, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, o plot.TimeSeqOptions, st plot.Style) error {
	ext := strings.ToLower(filepath.Ext(out))
	return writeFileAtomic(out, func(f *os.File) error {
		switch ext {
		case ".csv":
			return writeSeqCSV(f, seqRows(r, o))
		case ".json":
			rows := seqRows(r, o)
			type jrow struct {
				seqRow
				End *int64 `json:"end"`
			}
			js := make([]jrow, len(rows))
			for i := range rows {
				js[i].seqRow = rows[i]
				if rows[i].known {
					v := rows[i].End
					js[i].End = &v
				}
			}
			enc := json.NewEncoder(f)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{
				"schema": seqSchema, "file": rep.File, "conn": r.Conn.Index, "dir": o.Dir.String(),
				"src": r.Conn.Half[o.Dir].Addr.String(), "dst": r.Conn.Half[o.Dir.Reverse()].Addr.String(),
				"wscale_known": r.Conn.Half[o.Dir.Reverse()].WScale >= 0,
				"points":       js,
			})
		}
		format := plot.FormatOf(out)
		if format == "" {
			return fmt.Errorf("unknown output format %q: use .png, .svg, .pdf, .csv or .json", ext)
		}
		p, err := plot.TimeSeq(r, o)
		if err != nil {
			return err
		}
		return p.SaveStyle(f, format, st)
	})
}

func writeSeqCSV(w io.Writer, rows []seqRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"type", "t_s", "frame", "start", "end", "class", "flags"})
	for _, r := range rows {
		end := strconv.FormatInt(r.End, 10)
		if !r.known {
			end = ""
		}
		cw.Write([]string{r.Type, strconv.FormatFloat(r.TS, 'f', 6, 64), strconv.FormatInt(r.Frame, 10), strconv.FormatInt(r.Start, 10), end, r.Class, r.Flags})
	}
	cw.Flush()
	return cw.Error()
}
