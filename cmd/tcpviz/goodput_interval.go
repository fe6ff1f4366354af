package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/tcpviz/tcpviz/campaign"
)

// registerIntervalFlags adds the goodput interval flags
// (docs/metrics.md#interval).
func registerIntervalFlags(fl *pflag.FlagSet, f *goodputFlags) {
	fl.StringVar(&f.interval, "interval", "", "one goodput interval START:END (capture seconds) for every flow, e.g. 10:100; overrides --starts, --end and the ground truth")
	fl.BoolVar(&f.noGroundTruth, "no-groundtruth", false, "do not read the testbed's ground truth next to the captures (ns-3: PREFIX-groundtruth.csv, groundtruth-all.csv, PREFIX-config.txt)")
}

// intervalOptions checks the interval flags and sets them in o.
func (f *goodputFlags) intervalOptions(o *campaign.Options) error {
	if f.interval != "" {
		if f.starts != "" || f.end > 0 {
			return fmt.Errorf("--interval gives every flow one window: drop --starts and --end")
		}
		iv, err := campaign.ParseInterval(f.interval)
		if err != nil {
			return fmt.Errorf("--interval: %w", err)
		}
		o.Interval = &iv
	}
	if f.end < 0 {
		return fmt.Errorf("--end %g: negative; capture times are seconds since the epoch (simulation seconds for ns-3)", f.end)
	}
	o.Sidecars = !f.noGroundTruth
	return nil
}

// intervalNote says over which interval the rates were taken.
func (f *goodputFlags) intervalNote(res *campaign.Result) string {
	if f.interval != "" {
		return "[" + f.interval + "] s for every flow (--interval)"
	}
	n := map[campaign.IntervalSource]int{}
	for _, r := range res.Rows {
		n[r.Source]++
	}
	end := "its receiver's close, else the run's last frame"
	if f.end > 0 {
		end = fmt.Sprintf("t = %g s", f.end)
	}
	switch {
	case n[campaign.FromStarts] > 0:
		return fmt.Sprintf("the application start from %s %s to %s", f.starts, someOf(n[campaign.FromStarts], len(res.Rows), "their first data"), end)
	case n[campaign.FromSidecar] > 0:
		if f.end <= 0 {
			end = "its stop there (else its receiver's close, else the run's last frame)"
		}
		return fmt.Sprintf("the application start from the testbed's ground truth next to the captures, %s %s to %s", count(len(res.Sidecars), "file"), someOf(n[campaign.FromSidecar], len(res.Rows), "their first data"), end)
	}
	return "the receiving application's interval: first data to " + end + " (as compare's end-to-end goodput)"
}

// warnIntervals prints, per run, the flows that started late while no
// application start was known, and a summary with the fix; the summary is
// repeated after the tables.
func (f *goodputFlags) warnIntervals(w io.Writer, res *campaign.Result) {
	for _, se := range res.SidecarErrors {
		fmt.Fprintf(w, "warning: ground truth of run %s unreadable, its flows start at their first packet: %v\n", se.File, se.Err)
	}
	absent := 0
	for _, r := range res.Rows {
		if r.Vantage == campaign.Nowhere {
			absent++
		}
	}
	if proxied := countVantage(res.Rows, campaign.AtProxy); proxied > 0 {
		fmt.Fprintf(w, "warning: %s %s acknowledged by a split-TCP PEP in their capture (vantage pep): their bytes were accepted by the PEP, not delivered end to end; analyse the captures behind the PEP (docs/metrics.md#pep)\n", count(proxied, "flow"), were(proxied))
	}
	if absent > 0 {
		fmt.Fprintf(w, "note: %s declared but found in no capture: rows with 0 bytes and vantage none, included in the tables\n", count(absent, "flow"))
	}
	if len(res.Late) == 0 {
		return
	}
	const perRun = 10 // warning lines per run; the rest are counted
	runs := map[string]int{}
	for _, l := range res.Late {
		runs[l.RunKey]++
		if n := runs[l.RunKey]; n > perRun {
			if n == perRun+1 {
				more := 0
				for _, m := range res.Late {
					if m.RunKey == l.RunKey {
						more++
					}
				}
				fmt.Fprintf(w, "warning: run %s: %d more late %s (every flow's rate: --csv)\n", filepath.Base(l.RunKey), more-perRun, map[bool]string{true: "flow", false: "flows"}[more-perRun == 1])
			}
			continue
		}
		fmt.Fprintf(w, "warning: run %s: flow %s:%d → %s:%d started late: first data at %.3f s, %.3f s after the run's median flow start (%.3f s); its rate may be up to %.0f %% too high\n",
			filepath.Base(l.RunKey), l.Src, l.SPort, l.Dst, l.DPort, l.FirstS, l.LateS, l.MedianS, l.Overstat*100)
	}
	sum := fmt.Sprintf("warning: %s in %s started late relative to their run's others, and no application start time is known: their rates start at the first data segment (an application whose SYN or first data waited for a route looks late). "+
		"Fix: give the start times with --starts FILE (CSV: src, sport, dst, dport, start_s[, stop_s], label columns; ns-3: --starts groundtruth-all.csv --starts-rename run=seed), "+
		"keep the testbed's ground truth next to the captures, or measure every flow over one window with --interval START:END (docs/metrics.md#interval)", count(len(res.Late), "flow"), count(len(runs), "run"))
	fmt.Fprintln(w, sum)
	if f.group != "" {
		f.notes = append(f.notes, sum)
	}
}

func countVantage(rows []campaign.FlowRow, v campaign.Vantage) int {
	n := 0
	for _, r := range rows {
		if r.Vantage == v {
			n++
		}
	}
	return n
}
