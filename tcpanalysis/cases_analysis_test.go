package tcpanalysis

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
)

// dirExpect is the analysis part of a shared case's per-direction
// expectations.
type dirExpect struct {
	RTT            []float64 `json:"rtt_samples_ms"`
	TSRTT          []float64 `json:"ts_rtt_samples_ms"`
	RetxSegs       *int64    `json:"retransmitted_segments"`
	RetxBytes      *int64    `json:"retransmitted_bytes"`
	OOOSegs        *int64    `json:"out_of_order_segments"`
	Retransmission []struct {
		Frame int64
		Class string
	} `json:"retransmissions"`
	OutOfOrder []struct{ Frame int64 } `json:"out_of_order"`
	// KeepAlives and ZWProbes are lists of frames, or a count.
	KeepAlives json.RawMessage         `json:"keepalives"`
	ZWProbes   []struct{ Frame int64 } `json:"zero_window_probes"`
	DupAcks    []int64                 `json:"duplicate_acks"`
	ZeroWins   []int64                 `json:"zero_window_advertisements"`
	DSACK      []struct{ Frame int64 } `json:"dsack_blocks"`
	ZWPeriods  []struct {
		StartFrame int64   `json:"start_frame"`
		EndFrame   int64   `json:"end_frame"`
		DurationMs float64 `json:"duration_ms"`
	} `json:"zero_window_periods"`
	InFlight     map[string]int64 `json:"bytes_in_flight_after_frame"`
	InFlightSACK map[string]int64 `json:"bytes_in_flight_sack_aware_after_frame"`
}

func decodeDir(t *testing.T, m map[string]json.RawMessage) dirExpect {
	var e dirExpect
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// className maps a case's class text to a tcpviz class: the name itself,
// or the word before "in tcpviz's vocabulary".
func className(s string) string {
	if m := regexp.MustCompile(`(\w+) in tcpviz's vocabulary`).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}

// TestCasesAnalysis checks every shared case's RTT samples (ACK method with
// Karn's rule, TSval/TSecr, handshake), retransmission classes, keep-alives,
// zero-window probes, duplicate ACKs, D-SACK blocks, zero-window periods,
// folded copies and bytes in flight.
func TestCasesAnalysis(t *testing.T) {
	sharedDir(t)
	for _, name := range caseNames(t) {
		t.Run(name, func(t *testing.T) {
			path, cf := loadCase(t, name)
			raw := rawCase(t, name)
			rep, err := AnalyzeFile(path, Options{Flows: flows.Options{WScale: -1}, Keep: func(int) bool { return true }})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range cf.Connections {
				r := rep.Conns[i]
				checkHandshake(t, i, "SYN → SYN-ACK", r.Handshake.SynToSynAck, r.Handshake.SynToSynAckOk, raw[i]["handshake_rtt_ms"])
				checkHandshake(t, i, "SYN-ACK → ACK", r.Handshake.SynAckToAck, r.Handshake.SynAckToAckOk, raw[i]["synack_to_ack_ms"])
				if n, ok := intField(raw[i], "folded_copies"); ok && r.Conn.Folded != n {
					t.Errorf("conn %d: %d folded copies, want %d", i, r.Conn.Folded, n)
				}
				if n, ok := intField(raw[i], "syn_retransmissions"); ok && r.Dir[flows.AtoB].SynRetx != n {
					t.Errorf("conn %d: %d SYN retransmissions, want %d", i, r.Dir[flows.AtoB].SynRetx, n)
				}
				// A SYN sent again with its ISN is a retransmission event of
				// the SYN's sequence number: rto, as nothing can signal a
				// fast retransmission before the handshake, with the first
				// SYN as its original (docs/metrics.md#events).
				var synRetxEv []string
				if v, ok := raw[i]["syn_retransmissions"]; ok && v[0] == '[' {
					var l []struct {
						Frame    int64 `json:"frame"`
						Original int64 `json:"original_frame"`
					}
					json.Unmarshal(v, &l)
					if r.Dir[flows.AtoB].SynRetx != int64(len(l)) {
						t.Errorf("conn %d: %d SYN retransmissions, want %d", i, r.Dir[flows.AtoB].SynRetx, len(l))
					}
					for _, x := range l {
						synRetxEv = append(synRetxEv, fmt.Sprintf("%d:rto", x.Frame))
						if o := originalOf(r, x.Frame); o != x.Original {
							t.Errorf("conn %d: SYN retransmission frame %d: original frame %d, want %d", i, x.Frame, o, x.Original)
						}
					}
				}
				if n, ok := intField(raw[i], "fin_retransmissions"); ok && r.Dir[flows.AtoB].FinRetx+r.Dir[flows.BtoA].FinRetx != n {
					t.Errorf("conn %d: %d FIN retransmissions, want %d", i, r.Dir[flows.AtoB].FinRetx+r.Dir[flows.BtoA].FinRetx, n)
				}
				// Each SYN or FIN sent again without payload is one
				// retransmission event (a FIN on data is the data's event).
				_, synN := raw[i]["syn_retransmissions"]
				_, finN := raw[i]["fin_retransmissions"]
				if synN || finN {
					var ctl int64
					for _, e := range r.Events {
						if e.Class.IsRetransmission() && e.Len == 0 {
							ctl++
						}
					}
					if want := r.Dir[0].SynRetx + r.Dir[1].SynRetx + r.Dir[0].FinRetx + r.Dir[1].FinRetx; ctl != want {
						t.Errorf("conn %d: %d retransmission events without payload, want %d (the SYN and FIN retransmissions; events %v)", i, ctl, want, eventList(r, flows.AtoB))
					}
				}
				dirs := []map[string]json.RawMessage{want.C2S, want.S2C}
				// midstream_no_syn_wscale's conn B names directions by port.
				if want.C2S == nil {
					dirs = portDirs(t, raw[i], r)
				}
				// ACK-side events (duplicate ACKs, zero windows) are listed
				// under either direction in the cases: check them per
				// connection, by frame.
				var wantAckEv []string
				for d, m := range dirs {
					if m == nil {
						continue
					}
					e := decodeDir(t, m)
					dir := flows.Direction(d)
					checkRTT(t, i, dir, r, MethodACK, e.RTT, m, "rtt_samples_ms")
					checkRTT(t, i, dir, r, MethodTS, e.TSRTT, m, "ts_rtt_samples_ms")
					if e.RetxSegs != nil && r.Dir[d].RetxSegs != *e.RetxSegs {
						t.Errorf("conn %d %s: %d retransmitted segments, want %d (events %v)", i, dir, r.Dir[d].RetxSegs, *e.RetxSegs, eventList(r, dir))
					}
					if e.RetxBytes != nil && r.Dir[d].RetxBytes != *e.RetxBytes {
						t.Errorf("conn %d %s: %d retransmitted bytes, want %d", i, dir, r.Dir[d].RetxBytes, *e.RetxBytes)
					}
					if e.OOOSegs != nil && r.Dir[d].OOOSegs != *e.OOOSegs {
						t.Errorf("conn %d %s: %d out-of-order segments, want %d", i, dir, r.Dir[d].OOOSegs, *e.OOOSegs)
					}
					if e.DSACK != nil && r.Dir[d].DSACKs != int64(len(e.DSACK)) {
						t.Errorf("conn %d %s: %d D-SACK blocks, want %d", i, dir, r.Dir[d].DSACKs, len(e.DSACK))
					}
					var wantEv []string
					if dir == flows.AtoB {
						wantEv = append(wantEv, synRetxEv...)
					}
					for _, x := range e.Retransmission {
						wantEv = append(wantEv, fmt.Sprintf("%d:%s", x.Frame, className(x.Class)))
					}
					for _, x := range e.OutOfOrder {
						wantEv = append(wantEv, fmt.Sprintf("%d:out_of_order", x.Frame))
					}
					var kaFrames []struct{ Frame int64 }
					var kaCount int
					if json.Unmarshal(e.KeepAlives, &kaFrames) == nil {
						for _, x := range kaFrames {
							wantEv = append(wantEv, fmt.Sprintf("%d:keepalive", x.Frame))
						}
					} else if json.Unmarshal(e.KeepAlives, &kaCount) == nil && r.Counts[d][KeepAlive] != int64(kaCount) {
						t.Errorf("conn %d %s: %d keep-alives, want %d", i, dir, r.Counts[d][KeepAlive], kaCount)
					}
					for _, x := range e.ZWProbes {
						wantEv = append(wantEv, fmt.Sprintf("%d:zw_probe", x.Frame))
					}
					for _, f := range e.DupAcks {
						wantAckEv = append(wantAckEv, fmt.Sprintf("%d:dup_ack", f))
					}
					for _, f := range e.ZeroWins {
						wantAckEv = append(wantAckEv, fmt.Sprintf("%d:zero_window", f))
					}
					if len(wantEv) > 0 || e.RetxSegs != nil {
						got := eventsOf(r, dir, false)
						sort.Strings(wantEv)
						if wantEv == nil {
							wantEv = []string{}
						}
						if fmt.Sprint(got) != fmt.Sprint(wantEv) {
							t.Errorf("conn %d %s: events %v, want %v", i, dir, got, wantEv)
						}
					}
					for _, zp := range e.ZWPeriods {
						found := false
						for _, p := range r.ZeroWindows {
							if p.StartFrame == zp.StartFrame && p.EndFrame == zp.EndFrame && near(ms(p.End.Sub(p.Start)), zp.DurationMs) {
								found = true
							}
						}
						if !found {
							t.Errorf("conn %d: zero-window period %+v not found in %+v", i, zp, r.ZeroWindows)
						}
					}
					for _, wp := range r.Series.Window[d] {
						if w, ok := e.InFlight[strconv.FormatInt(wp.Frame, 10)]; ok && wp.InFlight != w {
							t.Errorf("conn %d %s: frame %d: bytes in flight %d, want %d", i, dir, wp.Frame, wp.InFlight, w)
						}
						if w, ok := e.InFlightSACK[strconv.FormatInt(wp.Frame, 10)]; ok && wp.InFlightSACK != w {
							t.Errorf("conn %d %s: frame %d: SACK-aware bytes in flight %d, want %d", i, dir, wp.Frame, wp.InFlightSACK, w)
						}
						if wp.FlightValid && (wp.InFlight < 0 || wp.InFlightSACK < 0) {
							t.Errorf("conn %d %s: frame %d: negative bytes in flight %d/%d", i, dir, wp.Frame, wp.InFlight, wp.InFlightSACK)
						}
					}
				}
				if m, ok := raw[i]["bytes_in_flight_after_frame"]; ok {
					var w map[string]int64
					json.Unmarshal(m, &w)
					for _, wp := range r.Series.Window[flows.AtoB] {
						if v, ok := w[strconv.FormatInt(wp.Frame, 10)]; ok && wp.InFlight != v {
							t.Errorf("conn %d: frame %d: bytes in flight %d, want %d", i, wp.Frame, wp.InFlight, v)
						}
					}
				}
				if len(wantAckEv) > 0 {
					var got []string
					for _, e := range r.Events {
						if e.Class == DupAck || e.Class == ZeroWindow {
							got = append(got, fmt.Sprintf("%d:%s", e.Frame, e.Class))
						}
					}
					sort.Strings(got)
					sort.Strings(wantAckEv)
					if fmt.Sprint(got) != fmt.Sprint(wantAckEv) {
						t.Errorf("conn %d: ACK events %v, want %v", i, got, wantAckEv)
					}
				}
			}
		})
	}
}

// checkHandshake compares a handshake split with the case's value: a
// number of ms, or null for "no sample" (absent: not checked).
func checkHandshake(t *testing.T, i int, what string, got time.Duration, ok bool, want json.RawMessage) {
	t.Helper()
	if len(want) == 0 {
		return
	}
	if string(want) == "null" {
		if ok {
			t.Errorf("conn %d: %s %.4f ms, want no sample", i, what, ms(got))
		}
		return
	}
	if !ok || !near(ms(got), want) {
		t.Errorf("conn %d: %s %.4f ms (valid %v), want %s", i, what, ms(got), ok, want)
	}
}

func ms(d interface{ Seconds() float64 }) float64 { return d.Seconds() * 1000 }

func near(a float64, b any) bool {
	var f float64
	switch v := b.(type) {
	case float64:
		f = v
	case json.RawMessage:
		json.Unmarshal(v, &f)
	}
	return math.Abs(a-f) < 0.0015
}

// rawCase returns each connection of a case as raw JSON fields.
func rawCase(t *testing.T, name string) []map[string]json.RawMessage {
	var c struct{ Connections []map[string]json.RawMessage }
	b := readCase(t, name)
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c.Connections
}

// portDirs maps "port443_to_port40002"-style keys to directions of r.
func portDirs(t *testing.T, raw map[string]json.RawMessage, r *ConnResult) []map[string]json.RawMessage {
	out := make([]map[string]json.RawMessage, 2)
	for k, v := range raw {
		var from, to int
		if n, _ := fmt.Sscanf(k, "port%d_to_port%d", &from, &to); n != 2 {
			continue
		}
		var m map[string]json.RawMessage
		json.Unmarshal(v, &m)
		if int(r.Conn.Half[flows.AtoB].Addr.Port()) == from {
			out[flows.AtoB] = m
		} else {
			out[flows.BtoA] = m
		}
	}
	return out
}

func checkRTT(t *testing.T, i int, d flows.Direction, r *ConnResult, m Method, want []float64, raw map[string]json.RawMessage, key string) {
	if _, ok := raw[key]; !ok {
		return
	}
	var got []float64
	for _, s := range r.RTT {
		if s.Dir == d && s.Method == m {
			got = append(got, math.Round(ms(s.RTT)*1000)/1000)
		}
	}
	if len(got) != len(want) {
		t.Errorf("conn %d %s: %s RTT samples %v ms, want %v", i, d, m, got, want)
		return
	}
	for k := range got {
		if math.Abs(got[k]-want[k]) > 0.0015 {
			t.Errorf("conn %d %s: %s RTT samples %v ms, want %v", i, d, m, got, want)
			return
		}
	}
}

func eventList(r *ConnResult, d flows.Direction) []string { return eventsOf(r, d, true) }

// eventsOf lists "frame:class" of the events about direction d's data
// (ACK-side classes only when acks is set), sorted.
// originalOf returns the original frame of frame's event, -1 if none.
func originalOf(r *ConnResult, frame int64) int64 {
	for _, e := range r.Events {
		if e.Frame == frame {
			return e.Original
		}
	}
	return -1
}

func eventsOf(r *ConnResult, d flows.Direction, acks bool) []string {
	var out []string
	for _, e := range r.Events {
		if e.Class == WindowFull || e.Class == LostSegment {
			continue
		}
		ackSide := e.Class == DupAck || e.Class == ZeroWindow
		if ackSide != acks && ackSide {
			continue
		}
		if e.Dir == d && !ackSide || ackSide && e.Dir == d.Reverse() {
			out = append(out, fmt.Sprintf("%d:%s", e.Frame, e.Class))
		}
	}
	sort.Strings(out)
	if out == nil {
		return []string{}
	}
	return out
}
