package manet

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWriteSummary: one right-aligned line per flow, "done" for a run
// complete before, FAILED for a failed run; the totals line counts them.
func TestWriteSummary(t *testing.T) {
	res := &Result{DiskBytes: 2_500_000, Runs: []RunResult{
		{Prefix: "tcp-aodv-r1", Wall: 12340 * time.Millisecond, Flows: []FlowTruth{
			{FlowID: 0, SrcNode: 3, DstNode: 7, SinkRxBytes: 123456, GoodputKbps: 98.76, TCPRetxSegs: 4},
			{FlowID: 1, SrcNode: 1, DstNode: 2, SinkRxBytes: 5, GoodputKbps: 0.04}}},
		{Prefix: "tcp-olsr-r1", Skipped: true, Flows: []FlowTruth{{FlowID: 0, SrcNode: 3, DstNode: 7, SinkRxBytes: 1000, GoodputKbps: 8}}},
		{Prefix: "tcp-dsdv-r1", Err: errors.New("boom")},
	}}
	var table, totals strings.Builder
	if err := res.WriteSummary(&table, &totals); err != nil {
		t.Fatal(err)
	}
	want := `          run  wall_s  flow  src->dst  sink_rx_bytes  goodput_kbps  tcp_retx
  tcp-aodv-r1    12.3     0      3->7         123456          98.8         4
  tcp-aodv-r1    12.3     1      1->2              5           0.0         0
  tcp-olsr-r1    done     0      3->7           1000           8.0         0
  tcp-dsdv-r1       -     -    FAILED              -             -         -
`
	if table.String() != want {
		t.Errorf("table:\n%q\nwant\n%q", table.String(), want)
	}
	if got := totals.String(); got != "3 runs (1 already done before), 2.5 MB in the output directory\n" {
		t.Errorf("totals: %q", got)
	}
}
