package query_test

import (
	"fmt"
	"time"

	"github.com/tcpviz/tcpviz/query"
)

// The goodput of the largest connection of a capture in its first 5 s after
// the bulk transfer started, per 1 s interval (intervals start at the
// connection's first packet, 0.6 s before the bulk start; 289.6 kbit/s is
// 25 segments of 1448 bytes acknowledged in one second).
func Example() {
	sel := query.All()
	sel.Ref, sel.To = query.RefBulk, 5*time.Second
	if err := sel.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	v, err := query.Analyze("../testdata/synthetic/geo-600ms-loss.pcap", sel, query.Options{Interval: time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("conn %d, data %s, interval %v\n", v.Conn.Conn.Index, v.Dir, v.Interval)
	s := v.Series(query.MetricGoodput)
	for i, p := range s.Points {
		fmt.Printf("%.1f s  %.1f %s\n", s.X(v.Ref)[i], p.V, s.Metric.Unit())
	}
	// Output:
	// conn 0, data ab, interval 1s
	// 0.4 s  289.6 kbit/s
	// 1.4 s  231.7 kbit/s
	// 2.4 s  382.3 kbit/s
	// 3.4 s  57.9 kbit/s
	// 4.4 s  57.9 kbit/s
}
