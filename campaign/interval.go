package campaign

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// IntervalSource says where a flow's goodput interval came from
// (docs/metrics.md#interval).
type IntervalSource string

// Sources of a goodput interval, most explicit first.
const (
	// FromInterval: Options.Interval, one window for every flow.
	FromInterval IntervalSource = "interval"
	// FromStarts: Options.Starts, a CSV of application start (and stop)
	// times the user gave.
	FromStarts IntervalSource = "starts"
	// FromSidecar: ground truth the testbed wrote next to the captures
	// (ns-3: PREFIX-groundtruth.csv, groundtruth-all.csv or
	// PREFIX-config.txt).
	FromSidecar IntervalSource = "groundtruth"
	// FromPackets: nothing known about the application; the interval
	// starts at the flow's earliest captured packet.
	FromPackets IntervalSource = "packets"
)

// Interval is one measurement window [Start, Stop] on the captures' clock,
// in seconds (simulation time for ns-3, seconds since the Unix epoch for
// live captures).
type Interval struct {
	Start, Stop float64
}

// ParseInterval parses "START:END" (seconds, 0 ≤ START < END).
func ParseInterval(s string) (Interval, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return Interval{}, fmt.Errorf("interval %q: want START:END in seconds", s)
	}
	x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err1 != nil || err2 != nil || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return Interval{}, fmt.Errorf("interval %q: want START:END in seconds", s)
	}
	if y <= x {
		return Interval{}, fmt.Errorf("interval %q: END must be after START", s)
	}
	if x < 0 {
		return Interval{}, fmt.Errorf("interval %q: START is negative; capture times are seconds since the epoch (simulation seconds for ns-3)", s)
	}
	if last := math.Floor(time.Duration(math.MaxInt64).Seconds()); x >= last {
		return Interval{}, fmt.Errorf("interval %q: START is past %.0f s, the last time a capture's clock holds (int64 nanoseconds since the epoch)", s, last)
	}
	return Interval{x, y}, nil
}

// AppFlow is one application flow a testbed or the user declared: its
// endpoints and when the application started and stopped, on the
// captures' clock (seconds). Stop is NaN when not known.
type AppFlow struct {
	Src   string
	SPort uint16
	Dst   string
	DPort uint16
	Start float64
	Stop  float64
}

func (f AppFlow) key() string {
	return f.Src + ":" + strconv.Itoa(int(f.SPort)) + ">" + f.Dst + ":" + strconv.Itoa(int(f.DPort))
}

func rowKey(r FlowRow) string {
	return r.Src + ":" + strconv.Itoa(int(r.SPort)) + ">" + r.Dst + ":" + strconv.Itoa(int(r.DPort))
}

// Sidecar is the ground truth found next to a run's captures.
type Sidecar struct {
	File  string    // the file it was read from
	Flows []AppFlow // the run's application flows
}

// ErrNoSidecar is returned by FindSidecar when nothing describes the run.
var ErrNoSidecar = errors.New("no ground truth next to the captures")

// FindSidecar looks for what a testbed wrote next to the captures of the
// run runKey (see RunKey): for ns-3 runs PREFIX-groundtruth.csv (columns
// src_ip, src_port, dst_ip, dst_port, start_s, stop_s), else the rows of
// groundtruth-all.csv in the same directory whose transport, protocol and
// run columns give PREFIX as TRANSPORT-PROTOCOL-rRUN, else the flow table
// of PREFIX-config.txt ("flowN=SRC(IP:PORT)->DST(IP:PORT) start=S" lines;
// the stop is its "time=" knob). Only TCP flows are declared: ground-truth
// rows whose transport column is not tcp, and configs with a transport
// other than tcp, are skipped. It returns ErrNoSidecar when none exists,
// and an error naming the file and line for a file it cannot read.
func FindSidecar(runKey string) (*Sidecar, error) {
	gt := runKey + "-groundtruth.csv"
	if _, err := os.Stat(gt); err == nil {
		fl, err := readGroundTruth(gt, nil)
		if err != nil {
			return nil, err
		}
		return &Sidecar{gt, fl}, nil
	}
	all := filepath.Join(filepath.Dir(runKey), "groundtruth-all.csv")
	if _, err := os.Stat(all); err == nil {
		prefix := filepath.Base(runKey)
		fl, err := readGroundTruth(all, func(get func(string) string) bool {
			return get("transport")+"-"+get("protocol")+"-r"+get("run") == prefix
		})
		if err != nil {
			return nil, err
		}
		if len(fl) > 0 {
			return &Sidecar{all, fl}, nil
		}
	}
	cfg := runKey + "-config.txt"
	if _, err := os.Stat(cfg); err == nil {
		fl, err := readConfigFlows(cfg)
		if err != nil {
			return nil, err
		}
		if len(fl) > 0 {
			return &Sidecar{cfg, fl}, nil
		}
	}
	return nil, ErrNoSidecar
}

// SidecarFiles returns the files FindSidecar may read for the run runKey
// that exist: PREFIX-groundtruth.csv, groundtruth-all.csv in the same
// directory, PREFIX-config.txt. A front end refuses to write an output
// over them.
func SidecarFiles(runKey string) []string {
	var out []string
	for _, p := range []string{runKey + "-groundtruth.csv", filepath.Join(filepath.Dir(runKey), "groundtruth-all.csv"), runKey + "-config.txt"} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// readGroundTruth reads ns-3 ground-truth rows; keep (nil: all) selects
// rows by column value.
func readGroundTruth(path string, keep func(get func(string) string) bool) ([]AppFlow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range []string{"src_ip", "src_port", "dst_ip", "dst_port", "start_s"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s: no %s column", path, c)
		}
	}
	var out []AppFlow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		get := func(c string) string {
			if i, ok := col[c]; ok {
				return rec[i]
			}
			return ""
		}
		if keep != nil && !keep(get) {
			continue
		}
		if tr := get("transport"); tr != "" && !strings.EqualFold(tr, "tcp") {
			continue // goodput measures TCP flows only
		}
		fl, err := appFlow(get("src_ip"), get("src_port"), get("dst_ip"), get("dst_port"), get("start_s"), get("stop_s"))
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
		}
		out = append(out, fl)
	}
	return out, nil
}

func appFlow(src, sport, dst, dport, start, stop string) (AppFlow, error) {
	sp, err1 := strconv.ParseUint(sport, 10, 16)
	dp, err2 := strconv.ParseUint(dport, 10, 16)
	if err1 != nil || err2 != nil {
		return AppFlow{}, fmt.Errorf("bad port %q or %q", sport, dport)
	}
	st, err := strconv.ParseFloat(start, 64)
	if err != nil {
		return AppFlow{}, fmt.Errorf("start %q: %w", start, err)
	}
	sv := math.NaN()
	if stop != "" {
		if sv, err = strconv.ParseFloat(stop, 64); err != nil {
			return AppFlow{}, fmt.Errorf("stop %q: %w", stop, err)
		}
	}
	return AppFlow{Src: src, SPort: uint16(sp), Dst: dst, DPort: uint16(dp), Start: st, Stop: sv}, nil
}

// configFlow matches ns-3 config lines such as
// "flow0=2(10.1.0.3:49152)->10(10.1.0.11:9000) start=14.765".
var configFlow = regexp.MustCompile(`^flow\d+=\d+\(([^:()]+):(\d+)\)->\d+\(([^:()]+):(\d+)\)\s+start=(\S+)`)

func readConfigFlows(path string) ([]AppFlow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AppFlow
	stop := ""
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if v, ok := strings.CutPrefix(t, "time="); ok {
			stop = strings.TrimSpace(v)
			continue
		}
		if v, ok := strings.CutPrefix(t, "transport="); ok && !strings.EqualFold(strings.TrimSpace(v), "tcp") {
			return nil, nil // goodput measures TCP flows only
		}
		m := configFlow.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		fl, err := appFlow(m[1], m[2], m[3], m[4], m[5], "")
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
		}
		out = append(out, fl)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if stop != "" {
		v, err := strconv.ParseFloat(stop, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: time=%q: %w", path, stop, err)
		}
		for i := range out {
			out[i].Stop = v
		}
	}
	return out, nil
}

// LateFlow is a flow whose first captured packet came late relative to the
// other flows of its run while no application start time was known: its
// rate is taken over a shorter interval than its application ran and may
// be overstated (docs/metrics.md#interval).
type LateFlow struct {
	RunKey   string
	Src      string
	SPort    uint16
	Dst      string
	DPort    uint16
	FirstS   float64 // its first captured packet, seconds (captures' clock)
	MedianS  float64 // median first packet of the run's flows, seconds
	LateS    float64 // FirstS − MedianS, seconds
	Overstat float64 // how much too high its rate is if the application started at MedianS: LateS / IntervalS = (end − MedianS)/(end − FirstS) − 1 (0.1 = 10 %)
}

// LateFraction is the overstatement above which Goodput reports a flow as
// late: its first packet came more than this fraction of its interval after
// the median first packet of its run's flows. 0.05 flags a flow whose rate
// may be more than 5 % too high; the spread of application starts within a
// run (ns-3 draws them from U[10, 20] s over 100 s) stays below it.
const LateFraction = 0.05

// lateFlows finds, per run, the flows whose interval came from their first
// packet and which started late relative to the run's others. Runs with
// fewer than three flows (not counting declared flows no capture holds and
// PEP-acknowledged rows) are not judged: with one other flow, "late" is
// only a gap (iperf3's data connection follows its control connection).
func lateFlows(rows []FlowRow) []LateFlow {
	byRun := map[string][]int{}
	var runs []string
	for i, r := range rows {
		if r.Vantage == Nowhere || r.Vantage.Proxied() {
			continue
		}
		if _, ok := byRun[r.RunKey]; !ok {
			runs = append(runs, r.RunKey)
		}
		byRun[r.RunKey] = append(byRun[r.RunKey], i)
	}
	var out []LateFlow
	for _, run := range runs {
		idx := byRun[run]
		if len(idx) < 3 {
			continue // "the run's others" needs at least two others
		}
		firsts := make([]float64, len(idx))
		for k, i := range idx {
			firsts[k] = rows[i].FirstS
		}
		sort.Float64s(firsts)
		med := firsts[len(firsts)/2]
		if len(firsts)%2 == 0 {
			med = (firsts[len(firsts)/2-1] + firsts[len(firsts)/2]) / 2
		}
		for _, i := range idx {
			r := rows[i]
			if r.Source != FromPackets || r.IntervalS <= 0 {
				continue
			}
			late := r.FirstS - med
			if f := late / r.IntervalS; f > LateFraction {
				out = append(out, LateFlow{RunKey: run, Src: r.Src, SPort: r.SPort, Dst: r.Dst, DPort: r.DPort,
					FirstS: r.FirstS, MedianS: med, LateS: late, Overstat: f})
			}
		}
	}
	return out
}

// runInfo is what Goodput knows about one run besides its rows.
type runInfo struct {
	key    string
	labels map[string]string // labels all its captures share
}

// runsOf groups files into runs (runKey) in file order, with the labels
// every capture of the run has in common.
func runsOf(files []string, runKey func(string) string, labels func(string) (map[string]string, bool)) []runInfo {
	idx := map[string]int{}
	var out []runInfo
	for _, f := range files {
		k := runKey(f)
		var l map[string]string
		if labels != nil {
			l, _ = labels(f)
		}
		i, ok := idx[k]
		if !ok {
			idx[k] = len(out)
			c := map[string]string{}
			for n, v := range l {
				c[n] = v
			}
			out = append(out, runInfo{key: k, labels: c})
			continue
		}
		for n, v := range out[i].labels {
			if l[n] != v {
				delete(out[i].labels, n)
			}
		}
	}
	return out
}

// absentRow is the row of a declared flow no capture of its run holds: 0
// goodput bytes over its application interval, vantage Nowhere.
func absentRow(run runInfo, f AppFlow, src IntervalSource, end float64) FlowRow {
	stop := f.Stop
	if end > 0 {
		stop = end
	}
	r := FlowRow{RunKey: run.key, Conn: -1, Src: f.Src, SPort: f.SPort, Dst: f.Dst, DPort: f.DPort,
		FirstS: f.Start, LastS: f.Start, Vantage: Nowhere, Labels: run.labels, StartKnown: true, Source: src}
	if !math.IsNaN(stop) {
		r.IntervalS = stop - f.Start
	}
	return r
}

// applyIntervals sets every row's goodput interval from the most explicit
// source available (Options.Interval, Options.Starts, the runs' sidecars,
// else the receiving application's first data to its close or the run's
// end), clips its bytes to the interval, drops undeclared flows below
// Options.MinBytes, and adds rows for declared flows that no capture held.
func applyIntervals(res *Result, o Options) {
	// Only captures that were analysed make runs: a capture the labels
	// rejected (or that failed) declares nothing, so its run's ground
	// truth is not turned into rows of flows "in no capture".
	failed := map[string]bool{}
	for _, f := range res.Failed {
		failed[f.File] = true
	}
	var used []string
	for _, f := range res.Files {
		if !failed[f] {
			used = append(used, f)
		}
	}
	runs := runsOf(used, o.runKey, o.Labels)
	// packetsStop is where a flow's interval ends when nothing declares
	// its stop: --end, else its receiver's close, else the run's end (the
	// last frame of any of its captures), so a flow whose packets stop
	// early (a route lost, a stall) is not measured over a shorter time.
	packetsStop := func(r *FlowRow) (float64, bool) {
		switch {
		case o.End > 0:
			return o.End, false
		case !math.IsNaN(r.app.Close):
			return r.app.Close, true
		}
		if e, ok := res.RunEnd[r.RunKey]; ok {
			return max(e, r.app.Start), false
		}
		return r.LastS, false
	}
	if o.Interval != nil {
		for i := range res.Rows {
			r := &res.Rows[i]
			r.StartKnown, r.Source = true, FromInterval
			r.clip(o.Interval.Start, o.Interval.Stop)
		}
		res.Rows, res.Dropped = dropSmall(res.Rows, o, nil)
		return
	}
	for i := range res.Rows {
		res.Rows[i].Source = FromPackets
	}
	declared := map[string]map[string]AppFlow{} // run → flow key → flow
	var src IntervalSource
	switch {
	case o.Starts != nil:
		src = FromStarts
		for _, run := range runs {
			fl := o.Starts.flowsOf(run.labels)
			onPort(fl, o.Port)
			if len(fl) > 0 {
				declared[run.key] = fl
			}
		}
	case o.Sidecars:
		src = FromSidecar
		for _, run := range runs {
			sc, err := FindSidecar(run.key)
			if errors.Is(err, ErrNoSidecar) || errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				res.SidecarErrors = append(res.SidecarErrors, FileError{run.key, err})
				continue
			}
			if len(sc.Flows) == 0 {
				continue // e.g. a UDP control run: no TCP flow declared
			}
			m := map[string]AppFlow{}
			for _, f := range sc.Flows {
				m[f.key()] = f
			}
			onPort(m, o.Port)
			declared[run.key] = m
			res.Sidecars = append(res.Sidecars, sc.File)
		}
	}
	seen := map[string]map[string]bool{}
	for i := range res.Rows {
		r := &res.Rows[i]
		f, ok := declared[r.RunKey][rowKey(*r)]
		if t := *r; !ok && r.dirGuess {
			// No capture told this data-less connection's direction; the
			// declared flow does.
			t.turn()
			if g, ok2 := declared[r.RunKey][rowKey(t)]; ok2 {
				*r, f, ok = t, g, true
			}
		}
		if !ok {
			r.clipApp(packetsStop(r))
			continue
		}
		if seen[r.RunKey] == nil {
			seen[r.RunKey] = map[string]bool{}
		}
		seen[r.RunKey][rowKey(*r)] = true
		stop := f.Stop
		switch {
		case o.End > 0:
			stop = o.End
		case math.IsNaN(stop):
			stop, _ = packetsStop(r)
		}
		r.StartKnown, r.Source = true, src
		r.clip(f.Start, stop)
	}
	res.Rows, res.Dropped = dropSmall(res.Rows, o, func(r FlowRow) bool { return r.Source == src && src != FromPackets })
	for _, run := range runs {
		fl := declared[run.key]
		keys := make([]string, 0, len(fl))
		for k := range fl {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !seen[run.key][k] {
				res.Rows = append(res.Rows, absentRow(run, fl[k], src, o.End))
			}
		}
	}
	sort.SliceStable(res.Rows, func(i, j int) bool {
		a, b := res.Rows[i], res.Rows[j]
		if a.RunKey != b.RunKey {
			return a.RunKey < b.RunKey
		}
		return a.FirstS < b.FirstS
	})
	res.Late = lateFlows(res.Rows)
}

// onPort removes from fl the flows without port on either side (the
// Port option; 0 keeps all): a flow left out of the batch is not declared
// absent either.
func onPort(fl map[string]AppFlow, port int) {
	if port == 0 {
		return
	}
	for k, f := range fl {
		if int(f.SPort) != port && int(f.DPort) != port {
			delete(fl, k)
		}
	}
}

// dropSmall removes the rows whose flow delivered fewer than o.MinBytes
// in all (with o.MinBytesClosed: and whose connection was closed), except those
// keep says are declared (a declared flow is a result whatever it
// delivered).
func dropSmall(rows []FlowRow, o Options, keep func(FlowRow) bool) (kept, dropped []FlowRow) {
	if o.MinBytes <= 0 {
		return rows, nil
	}
	kept = rows[:0:0]
	for _, r := range rows {
		if r.TotalBytes < o.MinBytes && (!o.MinBytesClosed || r.closed) && (keep == nil || !keep(r)) {
			dropped = append(dropped, r)
			continue
		}
		kept = append(kept, r)
	}
	return kept, dropped
}
