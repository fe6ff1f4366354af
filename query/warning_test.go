package query

import (
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestNodeWarnings: an 802.11 capture whose node is known and whose
// analysis left overheard frames out says so, naming the node's MAC and
// the evidence; one whose node is unknown says why and that every frame
// was analysed as received; a known node that overheard nothing, and a
// capture with no node to tell (wired), say nothing
// (docs/metrics.md#own-frames).
func TestNodeWarnings(t *testing.T) {
	known := capture.Node{Known: true, MACs: [][6]byte{{0, 0, 0, 0, 0, 0x0b}}, Why: "769 of 2475 frames scanned were sent by the capturing radio"}
	for _, tc := range []struct {
		name string
		rep  tcpanalysis.Report
		kind WarningKind
		want []string // in the text; nil: no such warning
	}{
		{"overheard", tcpanalysis.Report{File: "n.pcap", Node: known, Overheard: 4086, OverheardConns: 4, OnlyOverheard: 1},
			WarnOverheard, []string{"n.pcap: 802.11 capture taken on the node with MAC 00:00:00:00:00:0b (769 of 2475 frames scanned", "4086 TCP frames of 4 connections", "come from overheard ACKs: 1)"}},
		{"nothing overheard", tcpanalysis.Report{File: "n.pcap", Node: known}, WarnOverheard, nil},
		{"unknown", tcpanalysis.Report{File: "s.pcap", Node: capture.Node{Why: "no frame of the first 12 records was sent"}, Stats: capture.Stats{Segments: 3}},
			WarnNodeUnknown, []string{"s.pcap: the node this 802.11 capture was taken on is unknown (no frame of the first 12 records was sent)", "analysed as received"}},
		{"wired", tcpanalysis.Report{File: "w.pcap", Stats: capture.Stats{Segments: 3}}, WarnNodeUnknown, nil},
	} {
		var got *Warning
		for _, w := range Warnings(&tc.rep) {
			if w.Kind == tc.kind {
				got = &w
			}
		}
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s: unexpected warning %q", tc.name, got)
		case tc.want != nil && got == nil:
			t.Errorf("%s: no warning of kind %d", tc.name, tc.kind)
		case got != nil:
			for _, s := range tc.want {
				if !strings.Contains(got.String(), s) {
					t.Errorf("%s: %q lacks %q", tc.name, got, s)
				}
			}
			if tc.kind == WarnOverheard && got.Count != tc.rep.Overheard {
				t.Errorf("%s: count %d, want %d", tc.name, got.Count, tc.rep.Overheard)
			}
		}
	}
}
