package query_test

import (
	"fmt"
	"time"

	"github.com/tcpviz/tcpviz/query"
)

// The goodput of the largest connection of a capture in its first 5 s after
// the bulk transfer started, per 1 s interval (intervals are laid from the
// reference point, the bulk start; 115.8 kbit/s is the initial window of 10
// segments of 1448 bytes acknowledged in the first second, and the five
// intervals add up to the 127 424 bytes acknowledged 5 s after it).
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
	// 0.0 s  115.8 kbit/s
	// 1.0 s  405.4 kbit/s
	// 2.0 s  0.0 kbit/s
	// 3.0 s  405.4 kbit/s
	// 4.0 s  92.7 kbit/s
}
