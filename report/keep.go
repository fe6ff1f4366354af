package report

import (
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
