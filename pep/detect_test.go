package pep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

func TestHops(t *testing.T) {
	tests := []struct {
		ttl  uint8
		want int
	}{
		{64, 0}, {63, 1}, {1, 31}, {32, 0}, {33, 31}, {128, 0}, {117, 11}, {255, 0}, {250, 5},
	}
	for _, tt := range tests {
		if got := Hops(tt.ttl); got != tt.want {
			t.Errorf("Hops(%d) = %d, want %d", tt.ttl, got, tt.want)
		}
	}
}

// satDir is the project's satellite testbed captures (client side).
const satDir = "../testdata/sat"

// sidecarPathRTT reads the run's JSON sidecar and returns its configured
// path RTT: 2 × (LAN + satellite one-way delay).
func sidecarPathRTT(t *testing.T, dir string) time.Duration {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "client.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Config struct {
			Sat struct {
				Delay int64 `json:"delay_ns"`
			} `json:"sat"`
			LAN struct {
				Delay int64 `json:"delay_ns"`
			} `json:"lan"`
		} `json:"config"`
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatalf("sidecar %s: %v", dir, err)
	}
	return 2 * time.Duration(sc.Config.Sat.Delay+sc.Config.LAN.Delay)
}

// capturePath returns the client capture of a run, plain or gzipped.
func capturePath(t *testing.T, dir string) string {
	t.Helper()
	for _, n := range []string{"client.pcap", "client.pcap.gz"} {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("no client capture in %s", dir)
	return ""
}

// bulk returns the connection that sent the most bytes A→B (iperf3's data
// connection; connection 0 is its control connection).
func bulk(rep *tcpanalysis.Report) *tcpanalysis.ConnResult {
	var best *tcpanalysis.ConnResult
	for _, c := range rep.Conns {
		if best == nil || c.Dir[flows.AtoB].Unique > best.Dir[flows.AtoB].Unique {
			best = c
		}
	}
	return best
}

func item(v Verdict, name string) (Item, bool) {
	for _, it := range v.Evidence {
		if it.Name == name {
			return it, true
		}
	}
	return Item{}, false
}

func TestDetectTestbed(t *testing.T) {
	const msec = time.Millisecond
	tests := []struct {
		run            string
		pep            bool
		ackMin, ackMax time.Duration // range of the bulk connection's ACK RTT median (LocalRTT)
		hops           float64       // receiver-hops: router between client and server?
	}{
		// Without a PEP the client sees the whole 610 ms path; the
		// default window queues up to ~1.2 s in the satellite link.
		{"pep-off_window-20KB", false, 600 * msec, 700 * msec, 1},
		{"pep-off_window-default", false, 600 * msec, 900 * msec, 1},
		// With the PEP the router 5 ms away (10 ms RTT) acknowledges.
		{"pep-on_window-20KB", true, 5 * msec, 50 * msec, 0},
		{"pep-on_window-default", true, 5 * msec, 50 * msec, 0},
	}
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			dir := filepath.Join(satDir, tt.run)
			path := capturePath(t, dir)
			rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Detail: true})
			if err != nil {
				t.Fatal(err)
			}
			r := bulk(rep)
			pathRTT := sidecarPathRTT(t, dir)
			ps, err := Evidence(path, r.Conn.Index)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []Verdict{Detect(r, flows.AtoB), DetectWith(r, flows.AtoB, Options{PathRTT: pathRTT, Packets: ps})} {
				for _, it := range v.Evidence {
					t.Logf("%-22s supports=%-5v %s | expected %s", it.Name, it.Supports, it.Observed, it.Expected)
				}
				t.Logf("likely=%v local=%v far=%v", v.Likely, v.LocalRTT, v.FarRTT)
				if v.Likely != tt.pep {
					t.Errorf("Detect(%s).Likely = %v, want %v", tt.run, v.Likely, tt.pep)
				}
				if v.LocalRTT < tt.ackMin || v.LocalRTT > tt.ackMax {
					t.Errorf("Detect(%s).LocalRTT = %v, want in [%v, %v]", tt.run, v.LocalRTT, tt.ackMin, tt.ackMax)
				}
				// The handshake RTT seen at the client is the same host's in
				// both cases (the PEP answers the SYN too): no-PEP ≈ 610 ms,
				// PEP ≈ 11 ms; the smallest ACK RTT matches it.
				hs := ms(r.Handshake.SynToSynAck)
				if it, ok := item(v, "ack-rtt-vs-handshake"); !ok || it.Supports || it.Value < hs*0.9 || it.Value > hs*1.1 {
					t.Errorf("Detect(%s) ack-rtt-vs-handshake = %+v, want min ACK RTT within 10%% of handshake %.1f ms, not supporting", tt.run, it, hs)
				}
				if lo, hi := ms(tt.ackMin), ms(tt.ackMax); hs < lo || hs > hi {
					t.Errorf("%s handshake RTT = %.1f ms, want %.0f..%.0f ms", tt.run, hs, lo, hi)
				}
				if it, ok := item(v, "zero-window-stall"); !ok || it.Supports != tt.pep {
					t.Errorf("Detect(%s) zero-window-stall = %+v, want Supports %v", tt.run, it, tt.pep)
				}
				// The capture is beside the client (its TTL 64): with the PEP
				// the acknowledger is on the client's link and stalls, so
				// receiver-hops counts; without, the server is 1 hop away.
				if it, ok := item(v, "receiver-hops"); !ok || it.Value != tt.hops || it.Supports != tt.pep {
					t.Errorf("Detect(%s) receiver-hops = %v, Supports %v (present %v), want %v, %v", tt.run, it.Value, it.Supports, ok, tt.hops, tt.pep)
				}
			}
		})
	}
}
