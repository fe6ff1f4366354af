package report

import (
	"os"
	"sort"

	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Fits reports whether every connection of rep can keep its series in a
// report bounded to maxConns connections and maxPackets packets.
func Fits(rep *tcpanalysis.Report, maxConns int, maxPackets int64) bool {
	var pkts int64
	for _, r := range rep.Conns {
		pkts += r.Dir[0].Pkts + r.Dir[1].Pkts
	}
	return len(rep.Conns) <= maxConns && pkts <= maxPackets
}

// KeepLargest chooses, from a summary analysis (no series kept), the
// connections whose series a report keeps: the largest by payload bytes,
// at most maxConns of them and, past the first, only while their packets
// add up to at most maxPackets. It returns the chosen connection indexes
// and their packets.
func KeepLargest(sum *tcpanalysis.Report, maxConns int, maxPackets int64) (keep map[int]bool, pkts int64) {
	idx := make([]int, len(sum.Conns))
	for i := range idx {
		idx[i] = i
	}
	bytes := func(i int) int64 { return sum.Conns[i].Dir[0].Bytes + sum.Conns[i].Dir[1].Bytes }
	sort.SliceStable(idx, func(a, b int) bool { return bytes(idx[a]) > bytes(idx[b]) })
	keep = map[int]bool{}
	for _, i := range idx[:min(maxConns, len(idx))] {
		n := sum.Conns[i].Dir[0].Pkts + sum.Conns[i].Dir[1].Pkts
		if len(keep) > 0 && pkts+n > maxPackets {
			continue
		}
		keep[i] = true
		pkts += n
	}
	return keep, pkts
}

// Limits bound what a report keeps: the series of at most Conns
// connections whose packets add up to at most Packets (KeepLargest); a
// capture file of at most OnePass bytes is first analysed once keeping
// every series, which is kept when it Fits.
type Limits struct {
	Conns   int
	Packets int64
	OnePass int64
}

// Analyze analyses the capture at path for a report within l, through
// analyze (the caller's way of reading a capture): one pass keeping every
// series when the file is small and the result fits, else a summary pass
// (opts as given) to choose the connections (KeepLargest) and a pass
// keeping theirs. It returns the report, and how many of how many
// connections kept their series with how many packets (kept == total when
// all did).
func Analyze(path string, opts tcpanalysis.Options, l Limits, analyze func(string, tcpanalysis.Options) (*tcpanalysis.Report, error)) (rep *tcpanalysis.Report, kept, total int, pkts int64, err error) {
	if st, err := os.Stat(path); err == nil && st.Size() <= l.OnePass {
		one := opts
		one.Keep = func(int) bool { return true }
		rep, err := analyze(path, one)
		if err != nil {
			return nil, 0, 0, 0, err
		}
		if Fits(rep, l.Conns, l.Packets) {
			return rep, len(rep.Conns), len(rep.Conns), 0, nil
		}
	}
	sum, err := analyze(path, opts)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	keep, pkts := KeepLargest(sum, l.Conns, l.Packets)
	opts.Keep = func(i int) bool { return keep[i] }
	rep, err = analyze(path, opts)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	return rep, len(keep), len(sum.Conns), pkts, nil
}
