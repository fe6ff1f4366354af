package campaign

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Starts holds known application start times per flow: when a flow's
// application began, which a capture cannot show if the first SYN waited
// for a route. Goodput's interval then starts there (docs/metrics.md#vantage).
type Starts struct {
	labels []string // label columns used to match, sorted
	m      map[string]float64
	// flows are the listed flows with their label values, in file order.
	flows []startFlow
}

type startFlow struct {
	labels map[string]string
	flow   AppFlow
}

// columns accepted for the endpoints, first name canonical.
var startCols = map[string][]string{
	"src": {"src", "src_ip"}, "sport": {"sport", "src_port"},
	"dst": {"dst", "dst_ip"}, "dport": {"dport", "dst_port"}, "start_s": {"start_s"},
}

// ReadStarts reads a CSV with columns src (or src_ip), sport (src_port),
// dst (dst_ip), dport (dst_port), start_s (seconds, the captures' clock),
// optionally stop_s (the application's stop, same clock), and label columns. rename maps a column name to a label name (e.g.
// run=seed for ns-3's ground truth); only columns that are label names
// (labelNames) are used to match. It returns an error naming the file and
// line for a missing column, a bad number, or two rows for the same flow.
func ReadStarts(path string, rename map[string]string, labelNames []string) (*Starts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		if r, ok := rename[h]; ok {
			h = r
		}
		col[h] = i
	}
	idx := map[string]int{}
	for name, alts := range startCols {
		found := false
		for _, a := range alts {
			if i, ok := col[a]; ok {
				idx[name], found = i, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: no %s column", path, strings.Join(alts, " or "))
		}
	}
	st := &Starts{m: map[string]float64{}}
	for _, l := range labelNames {
		if _, ok := col[l]; ok {
			st.labels = append(st.labels, l)
		}
	}
	sort.Strings(st.labels)
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		v, err := strconv.ParseFloat(rec[idx["start_s"]], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: start_s %q: %v", path, line, rec[idx["start_s"]], err)
		}
		labels := map[string]string{}
		for _, l := range st.labels {
			labels[l] = rec[col[l]]
		}
		k := st.key(labels, rec[idx["src"]], rec[idx["sport"]], rec[idx["dst"]], rec[idx["dport"]])
		if _, dup := st.m[k]; dup {
			return nil, fmt.Errorf("%s: line %d: a second start for flow %s; add label columns that tell the runs apart", path, line, k)
		}
		st.m[k] = v
		stop := ""
		if i, ok := col["stop_s"]; ok {
			stop = rec[i]
		}
		fl, err := appFlow(rec[idx["src"]], rec[idx["sport"]], rec[idx["dst"]], rec[idx["dport"]], rec[idx["start_s"]], stop)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
		}
		st.flows = append(st.flows, startFlow{labels, fl})
	}
	return st, nil
}

func (st *Starts) key(labels map[string]string, src, sport, dst, dport string) string {
	var b strings.Builder
	for _, l := range st.labels {
		b.WriteString(l + "=" + labels[l] + " ")
	}
	b.WriteString(src + ":" + sport + ">" + dst + ":" + dport)
	return b.String()
}

// Lookup returns the start time of row's flow, if listed.
func (st *Starts) Lookup(r FlowRow) (float64, bool) {
	if st == nil {
		return 0, false
	}
	v, ok := st.m[st.key(r.Labels, r.Src, strconv.Itoa(int(r.SPort)), r.Dst, strconv.Itoa(int(r.DPort)))]
	return v, ok
}

// flowsOf returns the listed flows whose label values all equal those in
// labels (a label missing from labels matches nothing), keyed by endpoints.
func (st *Starts) flowsOf(labels map[string]string) map[string]AppFlow {
	out := map[string]AppFlow{}
	for _, f := range st.flows {
		ok := true
		for _, l := range st.labels {
			if v, has := labels[l]; !has || v != f.labels[l] {
				ok = false
				break
			}
		}
		if ok {
			out[f.flow.key()] = f.flow
		}
	}
	return out
}
