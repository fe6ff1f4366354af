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
	"github.com/tcpviz/tcpviz/query"
)

// seqSchema versions the seq CSV/JSON output (docs/schema.md#seq).
// Version 2: t_s counts from the capture's first frame, conn_t_s from the
// connection's first packet.
const seqSchema = "tcpviz.seq/2"

func newSeqCmd(e *env) *cobra.Command {
	var af analysisFlags
	var sf selFlags
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
.csv or .json (the points). Without -o it writes DIR_FILE.connN.DIR.seq.png
(DIR: the capture's directory) in the current directory and prints the path.` + selectionHelp,
		Example: `  tcpviz seq run.pcap
  tcpviz seq run.pcap --conn 2 --dir ba --from 0 --to 5 -o seq.svg
  tcpviz seq run.pcap --port 5201 -o seq.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := af.options(); err != nil {
				return err
			}
			sel, err := sf.selection()
			if err != nil {
				return err
			}
			if _, err := checkOut(out, true); err != nil {
				return err
			}
			v, err := e.view(args[0], &af, sel, query.Options{Events: pepMode}, true)
			if err != nil {
				return err
			}
			r, d := v.Conn, v.Dir
			if out == "" {
				out = defaultOut(args[0], r.Conn.Index, d, "seq")
			}
			o := plot.TimeSeqOptions{Dir: d, From: v.Ref.Sub(r.Conn.First) + sel.From}
			if sel.To > 0 {
				o.To = v.Ref.Sub(r.Conn.First) + sel.To
			}
			if err := writeSeq(out, v, o); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, out)
			if pepMode {
				return e.pepOne(args[0], r, d, pathRTT)
			}
			return nil
		},
	}
	af.register(c)
	sf.register(c, query.RefSYN)
	c.Flags().StringVarP(&out, "output", "o", "", "output file: .png, .svg, .pdf, .csv or .json")
	c.Flags().BoolVar(&pepMode, "pep", false, "also print the evidence for or against a split-TCP PEP on this connection (see 'tcpviz rtt --help')")
	c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known, for --pep")
	return c
}

// seqRow is one point of the seq CSV/JSON output (docs/schema.md#seq).
type seqRow struct {
	Type   string  `json:"type"`     // data, ack or sack
	TS     float64 `json:"t_s"`      // seconds since the capture's first frame
	ConnTS float64 `json:"conn_t_s"` // seconds since the connection's first packet
	Frame  int64   `json:"frame"`
	Start  int64   `json:"start"` // data: first relative seq; ack: ack; sack: left edge
	End    int64   `json:"end"`   // data: end; ack: window edge ack+rwnd (empty/null if unknown); sack: right edge
	Class  string  `json:"class"` // data: new, retransmitted, out_of_order; ack: window_known / window_unknown
	Flags  string  `json:"flags"`
	known  bool
}

// seqRows are the points of the chosen connection and direction inside
// the selection's time range.
func seqRows(v *query.View) []seqRow {
	r, d, t0 := v.Conn, v.Dir, v.Conn.Conn.First
	in := func(t capture.Timestamp) bool { return v.Sel.InRange(t, v.Ref) }
	var rows []seqRow
	for _, s := range r.Series.Segs[d] {
		if in(s.Time) {
			rows = append(rows, seqRow{"data", v.CaptureS(s.Time), s.Time.Sub(t0).Seconds(), s.Frame, s.Start, s.End, s.Kind.String(), s.Flags.String(), true})
		}
	}
	for _, a := range r.Series.Acks[d] {
		if in(a.Time) {
			cl := "window_known"
			if !a.WindowKnown {
				cl = "window_unknown"
			}
			rows = append(rows, seqRow{"ack", v.CaptureS(a.Time), a.Time.Sub(t0).Seconds(), a.Frame, a.Ack, a.Ack + a.Window, cl, "", a.WindowKnown})
		}
	}
	for _, s := range r.Series.SACKs[d] {
		if in(s.Time) {
			rows = append(rows, seqRow{"sack", v.CaptureS(s.Time), s.Time.Sub(t0).Seconds(), s.Frame, s.Left, s.Right, "", "", true})
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

// writeSeq writes the time-sequence graph or points of v's connection;
// o's range must be the selection's.
func writeSeq(out string, v *query.View, o plot.TimeSeqOptions) error {
	r := v.Conn
	ext := strings.ToLower(filepath.Ext(out))
	return writeFileAtomic(out, func(f *os.File) error {
		switch ext {
		case ".csv":
			return writeSeqCSV(f, seqRows(v))
		case ".json":
			rows := seqRows(v)
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
				"schema": seqSchema, "file": v.File, "conn": r.Conn.Index, "dir": o.Dir.String(),
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
		return plot.Write(f, p, format)
	})
}

func writeSeqCSV(w io.Writer, rows []seqRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"type", "t_s", "conn_t_s", "frame", "start", "end", "class", "flags"})
	for _, r := range rows {
		end := strconv.FormatInt(r.End, 10)
		if !r.known {
			end = ""
		}
		cw.Write([]string{r.Type, strconv.FormatFloat(r.TS, 'f', 6, 64), strconv.FormatFloat(r.ConnTS, 'f', 6, 64), strconv.FormatInt(r.Frame, 10), strconv.FormatInt(r.Start, 10), end, r.Class, r.Flags})
	}
	cw.Flush()
	return cw.Error()
}
