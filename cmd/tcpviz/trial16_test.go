package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
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
