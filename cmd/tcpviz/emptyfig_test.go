package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestEmptyFigureWarnsNoData: on a connection that carried no data (a
// handshake only), every figure that has nothing to draw warns as the
// others do and is still written — tput wrote an empty figure, with a
// legend for a line it did not draw, without a word, and compare never
// warned; the figures that do draw something (the handshake's RTT, its
// windows) do not warn, nor does tput on a connection with data.
func TestEmptyFigureWarnsNoData(t *testing.T) {
	hs := filepath.Join(sharedtest.Dir(t, "corpus"), "tcpdump-tcp-handshake-nano.pcap")
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"tput", hs}, true},
		{[]string{"compare", "a=" + hs, "--metric", "rtt"}, true},
		{[]string{"compare", "a=" + hs, "--metric", "throughput", "--layout", "grid"}, true},
		{[]string{"rtt", hs}, false},
		{[]string{"window", hs}, false},
		{[]string{"tput", synth}, false},
	} {
		out := filepath.Join(t.TempDir(), "x.png")
		_, stderr, err := runCLI(t, append(c.args, "-o", out)...)
		if err != nil {
			t.Fatalf("tcpviz %s: %v", strings.Join(c.args, " "), err)
		}
		if got := strings.Contains(stderr, "x.png draws nothing"); got != c.warn {
			t.Errorf("tcpviz %s -o x.png: warned %v, want %v; stderr %q", strings.Join(c.args, " "), got, c.warn, stderr)
		}
		if _, err := os.Stat(out); err != nil {
			t.Errorf("tcpviz %s: %v", strings.Join(c.args, " "), err)
		}
	}
}

// TestSeqWarnsAsDrawn: seq warns that a figure draws nothing by what it
// draws (its legend), as writeFigure does for the other verbs. Zoomed to
// 0.12-0.2 s, tcpdump-ssh has no segment or ACK, but the ACK line and
// receive window hold across the window from the ACK before it and are
// drawn: no "draws nothing" (it warned, over a drawn line); at 100-200 s,
// after the connection, nothing is drawn and it warns.
func TestSeqWarnsAsDrawn(t *testing.T) {
	ssh := filepath.Join(sharedtest.Dir(t, "corpus"), "tcpdump-ssh.pcap")
	for _, c := range []struct {
		from, to string
		warn     bool
	}{{"0.12", "0.2", false}, {"100", "200", true}} {
		out := filepath.Join(t.TempDir(), "x.png")
		_, stderr, err := runCLI(t, "seq", ssh, "--from", c.from, "--to", c.to, "-o", out)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(stderr, "x.png draws nothing"); got != c.warn {
			t.Errorf("seq --from %s --to %s: warned %v, want %v; stderr %q", c.from, c.to, got, c.warn, stderr)
		}
	}
}

// TestWarnDirWithoutData: --dir on a direction that carried no payload
// (geo-600ms-loss's ba: its ACKs) warns for window and seq as the other
// empty outputs do, naming the direction that did carry data; the data
// direction does not warn.
func TestWarnDirWithoutData(t *testing.T) {
	const want = "conn 0: direction ba carries no data (0 payload bytes; ab carried 584992; --dir ab for the data)"
	for _, c := range []struct {
		verb, dir string
		warn      bool
	}{{"window", "ba", true}, {"seq", "ba", true}, {"window", "ab", false}, {"seq", "ab", false}} {
		out := filepath.Join(t.TempDir(), "x.png")
		_, stderr, err := runCLI(t, c.verb, synth, "--dir", c.dir, "-o", out)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(stderr, want); got != c.warn {
			t.Errorf("%s --dir %s: warned %v, want %v; stderr %q", c.verb, c.dir, got, c.warn, stderr)
		}
	}
}
