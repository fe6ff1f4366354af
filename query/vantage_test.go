package query

import (
	"slices"
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

// TestVantageOf: each vantage class by its rule, in VantageOf's order: a
// node that only overheard the connection (Conn.Overheard, no packet of
// its own), a relay (RelayTx), a receiver-side capture (legConn: ack
// samples 0.1 ms, SYN-ACK → ACK 50 ms), the sender's own radio (OwnTx of
// the data direction), and a sender-side capture (legConn 50 ms, 0.1 ms)
// and one without samples, which nothing flags; the progress and goodput
// are the connection's except at a relay and an overhearer.
func TestVantageOf(t *testing.T) {
	overheard := legConn(0, 50*time.Millisecond)
	overheard.Conn.Overheard = 52
	relay := legConn(100*time.Microsecond, 50*time.Millisecond)
	relay.Dir[flows.AtoB].Pkts, relay.Dir[flows.AtoB].RelayTx = 10, 10
	radio := legConn(7*time.Millisecond, 90*time.Millisecond)
	radio.Dir[flows.AtoB].Pkts, radio.Dir[flows.AtoB].OwnTx = 10, 10
	for _, c := range []struct {
		name string
		r    *tcpanalysis.ConnResult
		want Vantage
		word string
		own  bool
	}{
		{"overheard only", overheard, VantageOverheard, "overheard only", false},
		{"relay", relay, VantageRelay, "relay", false},
		{"receiver side", legConn(100*time.Microsecond, 50*time.Millisecond), VantageAway, "not beside the sender", true},
		{"sender's radio", radio, VantageSenderRadio, "sender's radio", true},
		{"sender side", legConn(50*time.Millisecond, 100*time.Microsecond), VantageNone, "none", true},
		{"no sample", legConn(0, 50*time.Millisecond), VantageNone, "none", true},
	} {
		v := VantageOf(c.r, flows.AtoB)
		if v != c.want || v.String() != c.word || v.OwnNumbers() != c.own {
			t.Errorf("%s: VantageOf = %d %q own %v, want %d %q own %v", c.name, v, v, v.OwnNumbers(), c.want, c.word, c.own)
		}
	}
}

// TestCaveats: what each output says is the notes and title lines of
// this package, in the order the verbs print them, and nothing at a
// sender-side capture.
func TestCaveats(t *testing.T) {
	rcv := legConn(100*time.Microsecond, 50*time.Millisecond)
	v := &View{Conn: rcv, Dir: flows.AtoB}
	for _, c := range []struct {
		o             Output
		notes, titles []string
	}{
		{OutSeq, nil, []string{"as seen at the capture point, not beside the sender: data as it arrived there"}},
		{OutRTT, []string{LegNote(rcv, flows.AtoB)}, []string{"capture point not beside the sender: the rest of the path adds ≤ 50.0 ms at its fastest"}},
		{OutRate, []string{SentNote(rcv, flows.AtoB)}, []string{"as seen at the capture point, not beside the sender: data as it arrived there"}},
		{OutWindow, []string{InFlightNote(rcv, flows.AtoB)}, []string{"in flight as seen at the capture point (RTT to the sender ≤ 50.000 ms at its fastest), not the sender's"}},
		{OutEvents, []string{RetransNote(rcv, flows.AtoB)}, []string{"as seen at the capture point, not beside the sender: retransmissions of data lost before it are missing"}},
	} {
		got := v.Caveats(c.o)
		if !slices.Equal(got.Notes, c.notes) || !slices.Equal(got.Titles, c.titles) || len(got.Warnings) != 0 {
			t.Errorf("receiver side, output %d: %+v, want notes %q, titles %q", c.o, got, c.notes, c.titles)
		}
	}
	if n := v.Caveats(OutRTT).Notes[0]; !strings.Contains(n, "conn 3: the capture point is not beside the ab sender") {
		t.Errorf("rtt note %q", n)
	}

	relay := legConn(100*time.Microsecond, 50*time.Millisecond)
	relay.Dir[flows.AtoB].Pkts, relay.Dir[flows.AtoB].RelayTx = 10, 10
	rv := &View{Conn: relay, Dir: flows.AtoB}
	rn := RelayNote(relay, flows.AtoB)
	if !strings.Contains(rn, "conn 3: the capture point is a relay") {
		t.Fatalf("relay note %q", rn)
	}
	for _, o := range []Output{OutSeq, OutRate, OutEvents} {
		if got := rv.Caveats(o).Notes; !slices.Equal(got, []string{rn}) {
			t.Errorf("relay, output %d: notes %q, want the relay note alone", o, got)
		}
	}
	if got := rv.Caveats(OutRTT).Titles; !slices.Equal(got, []string{"at a relay: samples time only part of the path"}) {
		t.Errorf("relay rtt titles %q", got)
	}
	if got := rv.Caveats(OutWindow); !slices.Equal(got.Titles, []string{"in flight as seen at a relay, not the sender's: ACKs on another route are missing"}) || !slices.Equal(got.Notes, []string{InFlightNote(relay, flows.AtoB)}) {
		t.Errorf("relay window caveats %+v", got)
	}

	overheard := legConn(0, 50*time.Millisecond)
	overheard.Conn.Overheard = 52
	ov := &View{Conn: overheard, Dir: flows.AtoB}
	for _, o := range []Output{OutSeq, OutRTT, OutRate, OutWindow, OutEvents} {
		if got := ov.Caveats(o).Notes; len(got) == 0 || got[0] != OverheardNote(overheard, flows.AtoB) || !strings.Contains(got[0], "only overheard this connection (its 52 frames here") {
			t.Errorf("overheard only, output %d: notes %q, want the overheard note first", o, got)
		}
	}

	snd := &View{Conn: legConn(50*time.Millisecond, 100*time.Microsecond), Dir: flows.AtoB}
	for _, o := range []Output{OutSeq, OutRTT, OutRate, OutWindow, OutEvents} {
		if c := snd.Caveats(o); !c.Empty() {
			t.Errorf("sender side, output %d: %+v, want nothing", o, c)
		}
	}
}
