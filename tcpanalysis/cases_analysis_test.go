package tcpanalysis

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"testing"

	"github.com/tcpviz/tcpviz/flows"
)

// dirExpect is the analysis part of a shared case's per-direction
// expectations.
type dirExpect struct {
	RTT            []float64 `json:"rtt_samples_ms"`
	RetxSegs       *int64    `json:"retransmitted_segments"`
	RetxBytes      *int64    `json:"retransmitted_bytes"`
	OOOSegs        *int64    `json:"out_of_order_segments"`
	Retransmission []struct {
		Frame int64
		Class string
	} `json:"retransmissions"`
	KeepAlives []struct{ Frame int64 } `json:"keepalives"`
	ZWProbes   []struct{ Frame int64 } `json:"zero_window_probes"`
	DupAcks    []int64                 `json:"duplicate_acks"`
	ZeroWins   []int64                 `json:"zero_window_advertisements"`
	ZWPeriods  []struct {
		StartFrame int64   `json:"start_frame"`
		EndFrame   int64   `json:"end_frame"`
		DurationMs float64 `json:"duration_ms"`
	} `json:"zero_window_periods"`
}

func decodeDir(t *testing.T, m map[string]json.RawMessage) dirExpect {
	var e dirExpect
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCasesAnalysis checks every shared case's RTT samples (ACK method with
// Karn's rule), handshake RTT, retransmission classes, keep-alives,
// zero-window probes, duplicate ACKs, zero-window periods and bytes in
// flight.
func TestCasesAnalysis(t *testing.T) {
	sharedDir(t)
	for _, name := range []string{"seq_wrap", "midstream_no_syn_wscale", "keepalive_vs_retrans", "zero_window_probe",
		"tso_supersegment", "port_reuse", "nsec_bigendian", "karn_delack_rtt"} {
		t.Run(name, func(t *testing.T) {
			path, cf := loadCase(t, name)
			raw := rawCase(t, name)
			rep, err := AnalyzeFile(path, Options{Flows: flows.Options{WScale: -1}, Keep: func(int) bool { return true }})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range cf.Connections {
				r := rep.Conns[i]
				if hs, ok := raw[i]["handshake_rtt_ms"]; ok {
					if !r.Handshake.SynToSynAckOk || !near(ms(r.Handshake.SynToSynAck), hs) {
						t.Errorf("conn %d: handshake RTT %.4f ms, want %v", i, ms(r.Handshake.SynToSynAck), hs)
					}
				}
				dirs := []map[string]json.RawMessage{want.C2S, want.S2C}
				// midstream_no_syn_wscale's conn B names directions by port.
				if want.C2S == nil {
					dirs = portDirs(t, raw[i], r)
				}
				for d, m := range dirs {
					if m == nil {
						continue
					}
					e := decodeDir(t, m)
					dir := flows.Direction(d)
					checkRTT(t, i, dir, r, e.RTT, m)
					if e.RetxSegs != nil && r.Dir[d].RetxSegs != *e.RetxSegs {
						t.Errorf("conn %d %s: %d retransmitted segments, want %d (events %v)", i, dir, r.Dir[d].RetxSegs, *e.RetxSegs, eventList(r, dir))
					}
					if e.RetxBytes != nil && r.Dir[d].RetxBytes != *e.RetxBytes {
						t.Errorf("conn %d %s: %d retransmitted bytes, want %d", i, dir, r.Dir[d].RetxBytes, *e.RetxBytes)
					}
					if e.OOOSegs != nil && r.Dir[d].OOOSegs != *e.OOOSegs {
						t.Errorf("conn %d %s: %d out-of-order segments, want %d", i, dir, r.Dir[d].OOOSegs, *e.OOOSegs)
					}
					var wantEv []string
					for _, x := range e.Retransmission {
						wantEv = append(wantEv, fmt.Sprintf("%d:%s", x.Frame, x.Class))
					}
					for _, x := range e.KeepAlives {
						wantEv = append(wantEv, fmt.Sprintf("%d:keepalive", x.Frame))
					}
					for _, x := range e.ZWProbes {
						wantEv = append(wantEv, fmt.Sprintf("%d:zw_probe", x.Frame))
					}
					// Events about this direction's data that the peer's
					// packets carry are listed under the peer's direction
					// in the cases.
					for _, f := range e.DupAcks {
						wantEv = append(wantEv, fmt.Sprintf("%d:dup_ack", f))
					}
					for _, f := range e.ZeroWins {
						wantEv = append(wantEv, fmt.Sprintf("%d:zero_window", f))
					}
					if len(wantEv) > 0 || e.RetxSegs != nil {
						got := eventsOf(r, dir, e.DupAcks != nil || e.ZeroWins != nil)
						sort.Strings(wantEv)
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
				}
				if b, ok := raw[i]["bytes_in_flight_after_frame"]; ok {
					var m map[string]int64
					json.Unmarshal(b, &m)
					for _, wp := range r.Series.Window[flows.AtoB] {
						if w, ok := m[strconv.FormatInt(wp.Frame, 10)]; ok && wp.InFlight != w {
							t.Errorf("frame %d: bytes in flight %d, want %d", wp.Frame, wp.InFlight, w)
						}
					}
				}
			}
		})
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

func checkRTT(t *testing.T, i int, d flows.Direction, r *ConnResult, want []float64, m map[string]json.RawMessage) {
	if _, ok := m["rtt_samples_ms"]; !ok {
		return
	}
	var got []float64
	for _, s := range r.RTT {
		if s.Dir == d && s.Method == MethodACK {
			got = append(got, math.Round(ms(s.RTT)*1000)/1000)
		}
	}
	if len(got) != len(want) {
		t.Errorf("conn %d %s: ACK RTT samples %v ms, want %v", i, d, got, want)
		return
	}
	for k := range got {
		if math.Abs(got[k]-want[k]) > 0.0015 {
			t.Errorf("conn %d %s: ACK RTT samples %v ms, want %v", i, d, got, want)
			return
		}
	}
}

func eventList(r *ConnResult, d flows.Direction) []string { return eventsOf(r, d, true) }

// eventsOf lists "frame:class" of the events about direction d's data
// (ACK-side classes only when acks is set), sorted.
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
