package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

var compareMetrics = []string{"seq", "rtt", "tput", "window", "inflight", "retrans"}

func init() {
	addCommand(func(e *env) *cobra.Command {
		var af analysisFlags
		var metric, align, layout, out, dir string
		var from, to float64
		var at []float64
		var toBytes int64
		var interval, pathRTT time.Duration
		var pepMode bool
		c := &cobra.Command{
			Use:   "compare LABEL=FILE[#conn]...",
			Short: "compare runs side by side: one series on shared axes, and a summary table with ratios to the first run",
			Long: `compare analyses one connection per run (LABEL=FILE, or LABEL=FILE#N for
connection N; default the one that carried most data) and draws the same
series for all of them on one set of axes (--layout overlay) or as small
multiples with shared axes (--layout grid), aligned at --align: bulk (the
first segment with ≥ 512 B payload, default), data (first data segment) or
syn (connection start). Metrics: seq (highest sequence sent), rtt (ACK-method
samples), tput (goodput per --interval), window (advertised rwnd), inflight
(bytes in flight) and retrans (cumulative retransmissions).

It always prints the summary table: slow-start end; bytes sent, acknowledged
to the sender and delivered end to end 1, 5, 10 s (and --at T) after the
reference point; time to --bytes N delivered; RTT p50/p95 per method;
end-to-end goodput, and the goodput accepted by a PEP; events by class; each
with its ratio to the first label (docs/metrics.md#compare). Series run to
the end of each connection, so stalls show.

When the sender's ACKs come from a split-TCP PEP (one capture's evidence, or
two captures that hold two TCP connections), the acknowledged bytes are the
ones the PEP accepted: they are reported as such, never as end-to-end
goodput. Give a run as LABEL=CLIENT+SERVER (captures on each side of the PEP
on one clock, e.g. the satellite testbed's client.pcap and server.pcap) or
LABEL=FILE+ (one pcapng, interface 0 client side, 1 server side) for the
end-to-end goodput, the bytes held in the PEP and each leg's RTT; --metric seq
then also draws the bytes the server acknowledged ("LABEL delivered").`,
			Example: `  tcpviz compare nopep=runs/pep-off_window-20KB/client.pcap pep=runs/pep-on_window-20KB/client.pcap+runs/pep-on_window-20KB/server.pcap -o seq.png
  tcpviz compare a=x.pcap#2 b=y.pcap --metric rtt --layout grid --from 0 --to 10 -o rtt.svg`,
			Args: cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				okMetric := false
				for _, m := range compareMetrics {
					okMetric = okMetric || m == metric
				}
				if !okMetric {
					return fmt.Errorf("--metric %q: want one of %s", metric, strings.Join(compareMetrics, ", "))
				}
				if layout != "overlay" && layout != "grid" {
					return fmt.Errorf("--layout %q: want overlay or grid", layout)
				}
				runs, err := e.compareRuns(args, &af, dir, align)
				if err != nil {
					return err
				}
				// The summary table, always.
				rows := compare.Summary(runs, at, toBytes)
				head := []string{"metric", "unit"}
				for i, r := range runs {
					if i == 0 {
						head = append(head, r.Label)
					} else {
						head = append(head, r.Label, "× "+runs[0].Label)
					}
				}
				table := [][]string{head}
				for _, row := range rows {
					line := []string{row.Metric, row.Unit}
					for i, v := range row.Values {
						line = append(line, compare.Format(v, row.Unit))
						if i > 0 {
							rt := compare.Ratio(v, row.Values[0])
							s := "–"
							if !math.IsNaN(rt) {
								s = strconv.FormatFloat(rt, 'f', 2, 64) + "×"
							}
							line = append(line, s)
						}
					}
					table = append(table, line)
				}
				if err := writeAligned(e.stdout, table); err != nil {
					return err
				}
				for _, r := range runs {
					fmt.Fprintf(e.stdout, "%s: %s conn %d, data %s, aligned at %s (%.3f s after its first packet)\n",
						r.Label, r.File, r.Result.Conn.Index, plot.Endpoints(r.Result.Conn, r.Dir), alignName(align), r.Ref.Sub(r.Result.Conn.First).Seconds())
				}
				writeCompareNotes(e.stdout, runs)
				if pepMode {
					for _, r := range runs {
						var pk *pep.PacketStats
						if !r.TwoIfaces() { // Evidence reads every interface: indexes differ
							if pk, err = pep.Evidence(r.File, r.Result.Conn.Index); err != nil {
								return inputError(err)
							}
						}
						v := pep.DetectWith(r.Result, r.Dir, pep.Options{PathRTT: pathRTT, Packets: pk})
						if err := writeVerdict(e.stdout, " for "+r.Label, v, pathRTT); err != nil {
							return err
						}
					}
				}
				if out == "" {
					return nil
				}
				if isHTML(out) {
					return e.htmlCompare(out, runs, align)
				}
				series := compareSeries(runs, metric, interval, secs(from), secs(to))
				ext := strings.ToLower(filepath.Ext(out))
				if ext == ".csv" {
					return writeFileAtomic(out, func(f *os.File) error { return writeCompareCSV(f, metric, series) })
				}
				format := plot.FormatOf(out)
				if format == "" {
					return fmt.Errorf("unknown output format %q: use .png, .svg, .pdf or .csv", ext)
				}
				ya := map[string]plot.Axis{"seq": {Label: "highest sequence sent", Unit: plot.UnitBytes}, "rtt": {Label: "ACK RTT", Unit: plot.UnitMillis},
					"tput": {Label: "goodput", Unit: plot.UnitKbps}, "window": {Label: "receive window", Unit: plot.UnitBytes},
					"inflight": {Label: "bytes in flight", Unit: plot.UnitBytes}, "retrans": {Label: "retransmissions (cumulative)"}}[metric]
				if l := pairYLabel(runs, metric, ""); l != "" { // a client/server pair
					ya.Label = strings.TrimSuffix(l, " (bytes)")
				}
				if l := tputYLabel(runs, metric); l != "" { // a PEP acknowledged some run
					ya.Label = l
				}
				name := joinLabels(runs)
				if e.fig.label != "" {
					name = e.fig.label
				}
				spec := plot.XYSpec{Title: fmt.Sprintf("%s: %s", name, ya.Label), Series: series, Y: ya,
					X: plot.Axis{Label: "time since " + alignName(align), Unit: plot.UnitSeconds}, Robust: metric == "rtt"}
				if to > 0 {
					spec.XFrom, spec.XTo = from, to
				}
				var fig plot.Figure
				if layout == "overlay" {
					fig, err = plot.XY(spec)
				} else {
					fig, err = plot.Grid(spec, min(len(series), 2))
				}
				if err != nil {
					return err
				}
				if err := writeFileAtomic(out, func(f *os.File) error { return e.saveFigure(f, fig, format) }); err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, out)
				return nil
			},
		}
		af.register(c)
		e.addFigFlags(c)
		c.Flags().StringVar(&metric, "metric", "seq", "series to compare: "+strings.Join(compareMetrics, ", "))
		c.Flags().StringVar(&align, "align", "bulk", "align runs at bulk (first segment with ≥ 512 B payload), data (first data segment) or syn (connection start)")
		c.Flags().StringVar(&layout, "layout", "overlay", "overlay (one set of axes) or grid (small multiples, shared axes)")
		c.Flags().StringVar(&dir, "dir", "", "data direction a2b or b2a (default: the direction with more data)")
		c.Flags().Float64Var(&from, "from", 0, "start of the x range, seconds after the reference point")
		c.Flags().Float64Var(&to, "to", 0, "end of the x range, seconds (0: the end)")
		c.Flags().Float64SliceVar(&at, "at", nil, "also report bytes acknowledged this many seconds after the reference point")
		c.Flags().Int64Var(&toBytes, "bytes", 0, "report the time until this many bytes were acknowledged")
		c.Flags().DurationVar(&interval, "interval", 0, "goodput interval for --metric tput (default 1s, or 1/20 of the shortest connection under 20 s)")
		c.Flags().StringVarP(&out, "output", "o", "", "figure (.png, .svg, .pdf), the series as .csv, or the interactive report in compare mode (.html)")
		c.Flags().BoolVar(&pepMode, "pep", false, "also print, per run, the evidence for or against a split-TCP PEP (see 'tcpviz rtt --help')")
		c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known, for --pep")
		return c
	})
}

func alignName(a string) string {
	switch a {
	case "syn":
		return "the connection's first packet"
	case "data":
		return "the first data segment"
	}
	return "the first bulk segment"
}

func joinLabels(runs []compare.Run) string {
	var l []string
	for _, r := range runs {
		l = append(l, r.Label)
	}
	return strings.Join(l, " vs ")
}

// compareSeries extracts one metric per run, x in seconds after the run's
// reference point, limited to [from, to].
func compareSeries(runs []compare.Run, metric string, interval, from, to time.Duration) []plot.Named {
	in := func(d time.Duration) bool { return d >= from && (to <= 0 || d <= to) }
	var out []plot.Named
	w := interval
	if metric == "tput" && w <= 0 {
		w = time.Second
		for _, r := range runs {
			if dur := r.Result.Conn.Duration(); dur < 20*time.Second {
				w = min(w, max(dur/20, time.Millisecond))
			}
		}
	}
	for i, r := range runs {
		s := plot.Named{Name: r.Label, Step: metric != "rtt", Scatter: metric == "rtt", Mark: plot.MarkOf(i)}
		add := func(t time.Duration, v float64) {
			if in(t) {
				s.X, s.Y = append(s.X, t.Seconds()), append(s.Y, v)
			}
		}
		res, d := r.Result, r.Dir
		switch metric {
		case "seq":
			var high int64
			for _, p := range res.Series.Segs[d] {
				if p.Payload > 0 && p.End-1 > high {
					high = p.End - 1
					add(p.Time.Sub(r.Ref), float64(high))
				}
			}
		case "rtt":
			for _, x := range res.RTT {
				if x.Method == tcpanalysis.MethodACK && x.Dir == d {
					add(x.Time.Sub(r.Ref), x.RTT.Seconds()*1000)
				}
			}
		case "tput":
			off := r.Ref.Sub(res.Conn.First)
			bins, _ := tcpanalysis.Bins(res, d, w) // nil past MaxBins: the run shows no series
			for _, b := range bins {
				add(b.Start-off, float64(b.Acked)*8/w.Seconds()/1000)
			}
			if r.ProxyAcked() { // the PEP's ACKs: bytes it accepted, not goodput
				s.Name = r.Label + " accepted by PEP"
			}
		case "window":
			for _, p := range res.Series.Window[d] {
				if p.RwndKnown {
					add(p.Time.Sub(r.Ref), float64(p.Rwnd))
				}
			}
		case "inflight":
			for _, p := range res.Series.Window[d] {
				if p.FlightValid {
					add(p.Time.Sub(r.Ref), float64(p.InFlight))
				}
			}
		case "retrans":
			n := 0
			for _, ev := range res.Events {
				if ev.Dir == d && ev.Class.IsRetransmission() {
					n++
					add(ev.Time.Sub(r.Ref), float64(n))
				}
			}
		}
		s = extendToEnd(s, r, to)
		out = append(out, s)
		if d, ok := deliveredSeries(r, metric, in, to); ok {
			out = append(out, d)
		}
		if d, ok := deliveredRate(r, metric, w, in, to); ok {
			out = append(out, d)
		}
	}
	return out
}

func writeCompareCSV(w io.Writer, metric string, series []plot.Named) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"label", "metric", "t_s", "value"})
	for _, s := range series {
		for i := range s.X {
			cw.Write([]string{s.Name, metric, strconv.FormatFloat(s.X[i], 'f', 6, 64), strconv.FormatFloat(s.Y[i], 'f', 3, 64)})
		}
	}
	cw.Flush()
	return cw.Error()
}
