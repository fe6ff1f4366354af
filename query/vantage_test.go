package query

import (
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestLegNote: a receiver-side capture (ACK samples 0.1 ms, SYN-ACK → ACK
// 50 ms) gets the note naming both parts; a sender-side one (samples 50 ms,
// SYN-ACK → ACK 0.1 ms) does not; nor does one without samples.
func TestLegNote(t *testing.T) {
	n := LegNote(legConn(100*time.Microsecond, 50*time.Millisecond), flows.AtoB)
	if !strings.Contains(n, "conn 3: the capture point is not beside the ab sender") || !strings.Contains(n, "smallest 0.100 ms") || !strings.Contains(n, "took 50.000 ms or less at its fastest") {
		t.Errorf("receiver-side note %q", n)
	}
	if n := LegNote(legConn(50*time.Millisecond, 100*time.Microsecond), flows.AtoB); n != "" {
		t.Errorf("sender-side capture got a note: %q", n)
	}
	if n := LegNote(legConn(0, 50*time.Millisecond), flows.AtoB); n != "" {
		t.Errorf("no samples, note %q", n)
	}
}

// TestInFlightNote: the in-flight note follows LegNote's rule: a
// receiver-side capture (ACK samples 0.1 ms, SYN-ACK → ACK 50 ms) gets the
// note and the figure's title line, a sender-side one and one without
// samples neither.
func TestInFlightNote(t *testing.T) {
	rcv := legConn(100*time.Microsecond, 50*time.Millisecond)
	if n := InFlightNote(rcv, flows.AtoB); !strings.Contains(n, "conn 3: the capture point is not beside the ab sender") || !strings.Contains(n, "capture point → sender → capture point 50.000 ms or less") {
		t.Errorf("receiver-side note %q", n)
	}
	if ti := InFlightTitle(rcv, flows.AtoB); ti != "in flight as seen at the capture point (RTT to the sender ≤ 50.000 ms at its fastest), not the sender's" {
		t.Errorf("receiver-side title %q", ti)
	}
	for _, r := range []*tcpanalysis.ConnResult{legConn(50*time.Millisecond, 100*time.Microsecond), legConn(0, 50*time.Millisecond)} {
		if n, ti := InFlightNote(r, flows.AtoB), InFlightTitle(r, flows.AtoB); n != "" || ti != "" {
			t.Errorf("sender-side or unknown capture got %q, %q", n, ti)
		}
	}
}

// legConn is conn 3 with one ack RTT sample of a→b data (none when sample
// is 0) and the handshake's SYN-ACK → ACK time.
func legConn(sample, synAckToAck time.Duration) *tcpanalysis.ConnResult {
	r := &tcpanalysis.ConnResult{Summary: tcpanalysis.Summary{Conn: &flows.Conn{Index: 3}}}
	if sample > 0 {
		r.RTTAgg[flows.AtoB][tcpanalysis.MethodACK] = tcpanalysis.RTTAgg{N: 1, Min: sample, Max: sample, Sum: sample}
	}
	r.Handshake.SynAckToAck, r.Handshake.SynAckToAckOk = synAckToAck, true
	return r
}

// TestSentNote: the "sent" note follows LegNote's rule: a receiver-side
// capture gets it, a sender-side one and one without samples do not.
func TestSentNote(t *testing.T) {
	if n := SentNote(legConn(100*time.Microsecond, 50*time.Millisecond), flows.AtoB); !strings.Contains(n, "conn 3: the capture point is not beside the ab sender: the data counted here (\"sent after t\", throughput) is what reached the capture point") {
		t.Errorf("receiver-side note %q", n)
	}
	for _, r := range []*tcpanalysis.ConnResult{legConn(50*time.Millisecond, 100*time.Microsecond), legConn(0, 50*time.Millisecond)} {
		if n := SentNote(r, flows.AtoB); n != "" {
			t.Errorf("sender-side or unknown capture got %q", n)
		}
	}
}

// TestDataDirectionOneSided: delivery decides the auto direction only when
// the capture holds packets of both ends. A capture of one direction (a
// filter on the source, an asymmetric return path) holds no ACK of its
// data, so its delivered bytes read 0: the fresh-eyes trial s12's 725 MB
// direction lost to the other's 1 byte, and seq drew only ACKs.
func TestDataDirectionOneSided(t *testing.T) {
	r := &tcpanalysis.ConnResult{}
	r.Dir[flows.AtoB].Pkts, r.Dir[flows.AtoB].Bytes = 500892, 725287272
	r.Dir[flows.BtoA].DeliveredBytes = 1
	if d := DataDirection(r); d != flows.AtoB {
		t.Errorf("one-sided capture: %v, want ab (the payload)", d)
	}
	r.Dir[flows.BtoA].Pkts = 3 // both ends captured: delivery decides
	if d := DataDirection(r); d != flows.BtoA {
		t.Errorf("both ends: %v, want ba (delivered more)", d)
	}
	// A relay that saw only the receiver's ACKs (ns-3 aodv r1 node 14,
	// flow 0): their direction's delivered bytes decide.
	r = &tcpanalysis.ConnResult{}
	r.Dir[flows.AtoB].Pkts = 45
	r.Dir[flows.BtoA].DeliveredBytes = 8554784
	if d := DataDirection(r); d != flows.BtoA {
		t.Errorf("ACKs only: %v, want ba (the data the ACKs acknowledged)", d)
	}
}
