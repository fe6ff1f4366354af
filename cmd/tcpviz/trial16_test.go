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
// end and holds every acknowledgement, yet it left out the bytes only
// overheard ACKs acknowledged (ns-3 olsr r1 node 14: 0.8 kbit/s in the
// window against 277.9 over the whole connection, 2 930 752 bytes
// missing). Now such a window counts them as the whole connection does
// (its goodput the flows bytes over its own span), and a window that may
// not hold them all (--from) names them and leaves them out.
func TestTputOverheardAckedInWindow(t *testing.T) {
	p := filepath.Join(sharedtest.Dir(t, "ns3"), "tcp-olsr-r1-14-0.pcap.gz")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--ref", "syn"}, []string{"acked by overheard ACKs    2930752 bytes more", "goodput in window          277.9 kbit/s over 84.574 s"}},
		{nil, []string{"acked by overheard ACKs    2930752 bytes more", "goodput in window          312.2 kbit/s over 75.288 s"}},
		{[]string{"--ref", "data"}, []string{"acked by overheard ACKs    2930752 bytes more", "goodput in window          312.2 kbit/s over 75.288 s"}},
		{[]string{"--from", "20"}, []string{"acked by overheard ACKs    2930752 bytes over the whole connection", "not in the rows nor in the goodput below"}},
	} {
		out, _, err := runCLI(t, append([]string{"tput", p}, c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("tput %v: no %q in\n%s", c.args, w, out)
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
