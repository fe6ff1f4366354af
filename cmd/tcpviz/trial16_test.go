package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/imgtest"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/plot"
)

// Trial 16: tput's window from --ref bulk or data runs to the connection's
// end, yet it left out, without a word, the bytes only overheard ACKs
// acknowledged (ns-3 aodv r1 node 5, the data sender's own radio: 2 896
// bytes). At the sender nothing is acknowledged before its first data
// segment, so such a window counts them, as the whole connection does (its
// goodput the flows bytes over its own span). Elsewhere — a relay, which
// overhears ACKs before the first data it carries (aodv r2 node 8: 3.0 of
// its 5.5 MB), or a window from --from — they are named and left out: when
// they came is not kept.
func TestTputOverheardAckedInWindow(t *testing.T) {
	sender := filepath.Join(sharedtest.Dir(t, "ns3"), "tcp-aodv-r1-5-0.pcap.gz")
	relay := filepath.Join(sharedtest.Dir(t, "ns3"), "tcp-aodv-r2-8-0.pcap.gz")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{sender, "--ref", "syn"}, []string{"acked by overheard ACKs    2896 bytes more", "goodput in window          90.8 kbit/s over 87.667 s"}},
		{[]string{sender}, []string{"acked by overheard ACKs    2896 bytes more", "goodput in window          91.8 kbit/s over 86.670 s"}},
		{[]string{sender, "--ref", "data"}, []string{"acked by overheard ACKs    2896 bytes more", "goodput in window          91.8 kbit/s over 86.670 s"}},
		{[]string{sender, "--from", "20"}, []string{"acked by overheard ACKs    2896 bytes over the whole connection", "not in the rows, the acked-after rows nor the goodput below"}},
		{[]string{relay}, []string{"acked by overheard ACKs    5456064 bytes over the whole connection", "goodput in window          0.0 kbit/s over 21.542 s"}},
		{[]string{relay, "--ref", "syn"}, []string{"acked by overheard ACKs    5456064 bytes more"}},
	} {
		out, _, err := runCLI(t, append([]string{"tput"}, c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("tput %v: no %q in\n%s", c.args[1:], w, out)
			}
		}
	}
}

// Trial 16: at a zero window with nothing in flight, the window figure
// drew the receive window at 0 under the in-flight line: the window never
// showed closing (cases/zero_window_probe, 685 ms). rwnd is drawn wide
// under the flights now, so its colour shows along the stall on both sides
// of them: about two pixel rows over the stall's 600-odd columns, where
// before only the legend's sample and two short steps had it.
func TestWindowFigureShowsZeroWindow(t *testing.T) {
	p := filepath.Join(sharedtest.Dir(t, "cases"), "zero_window_probe.pcap")
	out := filepath.Join(t.TempDir(), "w.png")
	if _, _, err := runCLI(t, "window", p, "-o", out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := imgtest.ColourPixels(t, b, plot.ColRwnd); n < 1500 {
		t.Errorf("%d pixels of the receive window's colour, want the zero window's band (≥ 1500)", n)
	}
}

// Trial 16: tput --at 1 printed "acked after 1 s" twice (the default row
// and the --at one); each time is one row now, at its first place.
func TestTputAtOnce(t *testing.T) {
	p := filepath.Join(sharedtest.Dir(t, "ns3"), "tcp-aodv-r1-5-0.pcap.gz")
	out, _, err := runCLI(t, "tput", p, "--at", "1", "--at", "3", "--at", "3")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"acked after 1 s", "acked after 3 s", "acked after 5 s"} {
		if n := strings.Count(out, row); n != 1 {
			t.Errorf("%q %d times, want once:\n%s", row, n, out)
		}
	}
}
