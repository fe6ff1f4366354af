package campaign

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestOnePassSameRows: the batch over shared/ns3 gives the same rows,
// warnings and intervals whether every capture is analysed in one pass
// with its series kept (captures up to onePassMaxBytes) or in two passes,
// with the ground truth's intervals and with one --interval (both need
// some connections' delivered-bytes curve).
func TestOnePassSameRows(t *testing.T) {
	dir := sharedNS3(t)
	p, _ := ParsePattern("{transport}-{protocol}-r{seed}-{node}-{dev}.pcap")
	files, err := Discover([]string{filepath.Join(dir, "tcp-*.pcap.gz")})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Labels: p.Match, Sidecars: true}, {Labels: p.Match, Interval: &Interval{Start: 30, Stop: 70}}} {
		run := func(limit int64) *Result {
			defer func(n int64) { onePassMaxBytes = n }(onePassMaxBytes)
			onePassMaxBytes = limit
			res, err := Goodput(context.Background(), files, o)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		one, two := run(1<<62), run(-1)
		if len(one.Rows) == 0 {
			t.Fatal("no rows")
		}
		curves := 0
		for _, r := range two.Rows {
			if len(r.curve) > 0 {
				curves++
			}
		}
		if curves == 0 {
			t.Errorf("sidecars %v: no row took the second pass; the test shows nothing", o.Sidecars)
		}
		// %+v: NaN (an interval without a close) equals NaN here.
		if a, b := fmt.Sprintf("%+v", one), fmt.Sprintf("%+v", two); a != b {
			t.Errorf("sidecars %v: one pass and two passes differ:\n%s\n%s", o.Sidecars, a, b)
		}
	}
}
