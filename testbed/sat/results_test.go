package sat

import (
	"strings"
	"testing"
	"time"
)

// TestWriteResults: one left-aligned line per run, RTTs in ms with one
// decimal, rates in Mbit/s with two.
func TestWriteResults(t *testing.T) {
	var b strings.Builder
	err := WriteResults(&b, []Result{{Name: "pep-on_window-20KB", Emulator: "userspace", ClientPcap: "runs/pep-on_window-20KB/client.pcap",
		Client:  Summary{HandshakeRTT: 601234 * time.Microsecond, ACKRTTMedian: 12540 * time.Microsecond, SeqProgress1s: 40000, Acked1s: 38000},
		SentBps: 2.5e6, RecvBps: 2.345e6}})
	want := "run                 emulator   handshake_ms  ack_rtt_median_ms  seq_1s_B  acked_1s_B  sent_Mbit/s  recv_Mbit/s  client capture\n" +
		"pep-on_window-20KB  userspace  601.2         12.5               40000     38000       2.50         2.35         runs/pep-on_window-20KB/client.pcap\n"
	if err != nil || b.String() != want {
		t.Errorf("got\n%q, %v\nwant\n%q", b.String(), err, want)
	}
}
