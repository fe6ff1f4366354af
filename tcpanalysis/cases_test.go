package tcpanalysis

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
)

// caseConn is the part of a shared/cases expected.json connection that the
// core checks (connections, handshake, window scale, bytes).
type caseConn struct {
	Client, Server string
	Endpoints      []string
	HandshakeSeen  bool `json:"handshake_seen"`
	// ISN is {"client": n, "server": m}, or one number (the client's).
	ISN         json.RawMessage
	WindowScale *struct {
		Client, Server any
		ClientUsed     any `json:"client_used"`
		ServerUsed     any `json:"server_used"`
	} `json:"window_scale"`
	DurationS *float64 `json:"duration_s"`
	C2S       map[string]json.RawMessage
	S2C       map[string]json.RawMessage
	// advertised_window_bytes: frame -> bytes, or a string saying unknown.
	AdvWindow json.RawMessage `json:"advertised_window_bytes"`
}

type caseFile struct {
	CaptureFile string `json:"capture_file"`
	Packets     int
	Connections []caseConn
	ConnCount   *int              `json:"connection_count"`
	AbsTimes    map[string]string `json:"absolute_timestamps"`
}

func readCase(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join(sharedDir(t), "cases", name+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadCase(t *testing.T, name string) (string, caseFile) {
	dir := filepath.Join(sharedDir(t), "cases")
	b := readCase(t, name)
	var cf caseFile
	if err := json.Unmarshal(b, &cf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if cf.CaptureFile == "" {
		cf.CaptureFile = name + ".pcap"
	}
	return filepath.Join(dir, cf.CaptureFile), cf
}

// caseNames lists every case in ../shared/cases (each NAME.expected.json),
// so that a case added there is checked without a code change.
func caseNames(t *testing.T) []string {
	m, err := filepath.Glob(filepath.Join(sharedDir(t), "cases", "*.expected.json"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no cases in ../shared/cases: %v", err)
	}
	var out []string
	for _, p := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".expected.json"))
	}
	return out
}

func intField(m map[string]json.RawMessage, k string) (int64, bool) {
	v, ok := m[k]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// TestCasesCore checks every shared case's connection-level facts:
// number of connections, sides, handshake, ISNs, window scale (including
// "unknown"), unique payload bytes each way and duration.
func TestCasesCore(t *testing.T) {
	sharedDir(t)
	for _, name := range caseNames(t) {
		t.Run(name, func(t *testing.T) {
			path, cf := loadCase(t, name)
			rep, err := AnalyzeFile(path, Options{Flows: flows.Options{WScale: -1}, Keep: func(int) bool { return true }})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stats.Frames != int64(cf.Packets) {
				t.Errorf("frames = %d, want %d", rep.Stats.Frames, cf.Packets)
			}
			if len(rep.Conns) != len(cf.Connections) {
				t.Fatalf("%d connections, want %d", len(rep.Conns), len(cf.Connections))
			}
			for i, want := range cf.Connections {
				r := rep.Conns[i]
				c := r.Conn
				a, b := c.Half[flows.AtoB], c.Half[flows.BtoA]
				if want.Client != "" && (a.Addr.String() != want.Client || b.Addr.String() != want.Server) {
					t.Errorf("conn %d: a=%v b=%v, want client %s server %s", i, a.Addr, b.Addr, want.Client, want.Server)
				}
				if c.HandshakeSeen != want.HandshakeSeen {
					t.Errorf("conn %d: handshake seen = %v, want %v", i, c.HandshakeSeen, want.HandshakeSeen)
				}
				var isn struct{ Client, Server uint32 }
				var isnA uint32
				if json.Unmarshal(want.ISN, &isn) == nil && (isn.Client != 0 || isn.Server != 0) {
					if uint32(a.ISN) != isn.Client || uint32(b.ISN) != isn.Server {
						t.Errorf("conn %d: ISNs %d/%d, want %d/%d", i, a.ISN, b.ISN, isn.Client, isn.Server)
					}
				} else if json.Unmarshal(want.ISN, &isnA) == nil && uint32(a.ISN) != isnA {
					t.Errorf("conn %d: client ISN %d, want %d", i, a.ISN, isnA)
				}
				if ws := want.WindowScale; ws != nil {
					check := func(side string, h flows.Half, v any) {
						switch v := v.(type) {
						case float64:
							if h.WScale != int(v) {
								t.Errorf("conn %d: %s window scale %d, want %v", i, side, h.WScale, v)
							}
						case string: // "unknown"
							if h.WScale != -1 {
								t.Errorf("conn %d: %s window scale %d, want unknown", i, side, h.WScale)
							}
						case nil: // not negotiated: no scaling
							if h.WScale != 0 {
								t.Errorf("conn %d: %s window scale %d, want 0 (not negotiated)", i, side, h.WScale)
							}
						}
					}
					if ws.ClientUsed != nil {
						ws.Client, ws.Server = ws.ClientUsed, ws.ServerUsed
					}
					check("client", a, ws.Client)
					check("server", b, ws.Server)
				}
				if want.DurationS != nil && math.Abs(c.Duration().Seconds()-*want.DurationS) > 1e-6 {
					t.Errorf("conn %d: duration %.6f s, want %.6f", i, c.Duration().Seconds(), *want.DurationS)
				}
				for d, m := range []map[string]json.RawMessage{want.C2S, want.S2C} {
					if u, ok := intField(m, "unique_payload_bytes"); ok && r.Dir[d].Unique != u {
						t.Errorf("conn %d %s: unique payload bytes %d, want %d", i, flows.Direction(d), r.Dir[d].Unique, u)
					}
				}
				// Relative sequence numbers of data frames (seq_wrap).
				if raw, ok := want.C2S["relative_seq_of_data_frames"]; ok {
					var m map[string]int64
					json.Unmarshal(raw, &m)
					for _, s := range r.Series.Segs[flows.AtoB] {
						if w, ok := m[strconv.FormatInt(s.Frame, 10)]; ok && s.Start != w {
							t.Errorf("frame %d: relative seq %d, want %d", s.Frame, s.Start, w)
						}
					}
				}
				// Advertised window in bytes per frame, or unknown.
				var adv map[string]int64
				if json.Unmarshal(want.AdvWindow, &adv) == nil && adv != nil {
					checkAdvWindow(t, path, c, adv)
				} else if len(want.AdvWindow) > 0 {
					// A string: the window must be reported unknown.
					for d := range r.Series.Acks {
						for _, ap := range r.Series.Acks[d] {
							if ap.WindowKnown {
								t.Errorf("frame %d: window reported as %d bytes, want unknown", ap.Frame, ap.Window)
							}
						}
					}
				}
			}
			// Exact nanosecond timestamps.
			if len(cf.AbsTimes) > 0 {
				r, err := capture.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				var s capture.Segment
				for r.Next(&s) == nil {
					want, ok := cf.AbsTimes[strconv.FormatInt(s.Frame, 10)]
					if !ok {
						continue
					}
					got := strconv.FormatInt(int64(s.Time)/1e9, 10) + "." + padNs(int64(s.Time)%1e9)
					if got != want {
						t.Errorf("frame %d: time %s, want %s", s.Frame, got, want)
					}
				}
			}
		})
	}
}

func padNs(n int64) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < 9 {
		s = "0" + s
	}
	return s
}

// checkAdvWindow re-reads the capture and checks each listed frame's
// advertised window in bytes.
func checkAdvWindow(t *testing.T, path string, c *flows.Conn, adv map[string]int64) {
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var s capture.Segment
	for {
		err := r.Next(&s)
		if errors.Is(err, io.EOF) {
			break
		}
		want, ok := adv[strconv.FormatInt(s.Frame, 10)]
		if !ok || flows.KeyOf(s.Src, s.Dst) != c.Key {
			continue
		}
		got, known := c.ScaledWindow(c.DirOf(s.Src), s.Window, s.Flags.Has(capture.SYN))
		if !known || got != want {
			t.Errorf("frame %d: window %d bytes (known %v), want %d", s.Frame, got, known, want)
		}
	}
}
