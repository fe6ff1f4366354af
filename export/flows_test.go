package export

import (
	"bytes"
	"strings"
	"testing"
)

// TestFlowsTableRowsOnly: a FlowsFile whose rows the caller built (a live
// capture) needs no Report; the header counts its rows.
func TestFlowsTableRowsOnly(t *testing.T) {
	ff := FlowsFile{File: "eth0", Format: "live", Frames: 10, Segments: 8,
		Conns: []FlowRow{{Conn: 3, AAddr: "10.0.0.1", APort: 1, BAddr: "10.0.0.2", BPort: 2, BytesAB: 1448}}}
	var b bytes.Buffer
	if err := WriteFlowsTable(&b, []FlowsFile{ff}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "eth0: live, 10 frames, 8 TCP segments, 1 connections") || !strings.Contains(out, "10.0.0.1:1") {
		t.Errorf("table:\n%s", out)
	}
}
