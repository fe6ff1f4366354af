package pep

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
)

// TestSplitTableAndHeldCSV: the split-connection table and the held-bytes
// CSV print hand-set values as the pep verb shows them.
func TestSplitTableAndHeldCSV(t *testing.T) {
	start := capture.Timestamp(10 * time.Second)
	r := SplitResult{SplitPair: SplitPair{Client: 1, Server: 0, Dir: flows.AtoB}, ClientPEPRTT: 10 * time.Millisecond, PEPServerRTT: 600050 * time.Microsecond,
		MaxHeldBytes: 148000, DeliveredBytes: 200000, GoodputKbps: 4020.1,
		Held: []HeldPoint{{Time: start + capture.Timestamp(1500*time.Millisecond), Bytes: 1000}}}
	tab := SplitTable([]SplitResult{r})
	if got := strings.Join(tab[1], "|"); got != "1|0|ab|yes|10.000|600.050|148000|200000|4020.1" {
		t.Errorf("row %s", got)
	}
	var b bytes.Buffer
	if err := WriteHeldCSV(&b, []SplitResult{r}, start); err != nil {
		t.Fatal(err)
	}
	if b.String() != "client_conn,server_conn,t_s,held_bytes\n1,0,1.500000,1000\n" {
		t.Errorf("held CSV %q", b.String())
	}
	v := Verdict{Evidence: []Item{{Name: "ACK RTT", Supports: true, Observed: "11 ms", Expected: "600 ms"}}}
	if got := strings.Join(v.Table()[1], "|"); got != "ACK RTT|YES|11 ms|600 ms" {
		t.Errorf("verdict row %s", got)
	}
}
