package report

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Nodes of the 802.11 chain of chainCaptures.
const (
	nodeS = iota // the sender, 10.0.0.1
	nodeR        // the relay of the data
	nodeN        // the receiver, 10.0.0.3
	nodeQ        // the relay of the ACKs (not captured)
	nodeO        // a node that overhears everything and is part of nothing
	nodes
)

// chainCaptures writes the radiotap captures that nodes S, R, N and O take
// of one connection S:40000 → N:5001 (paths indexed by node; Q's is not
// written), as ns-3 writes a node's pcap: its own transmissions without an
// antenna signal, what it decodes with one. The data goes S → R → N, the
// ACKs N → Q → S but for the first, which goes N → R → S; O hears every
// frame (all addressed to other nodes) and sends one of its own, a SYN to
// 10.0.0.9:80, after the rest. A hop takes 2 ms (ms after t0):
//
//	10 S→R SYN, 12 R→N;  20 N→Q SYN-ACK, 22 Q→S;  30 S→R ACK, 32 R→N
//	40+i S→R data i (1448 B, i = 0…149), 42+i R→N
//	43+i (odd i) N ACKs 1+1448(i+1), window 65535: i = 1 N→R, R→S at
//	45+i; the others N→Q, Q→S at 45+i
//	300 O→Q SYN
//
// So S is the sender's own radio (ack RTT 45+i − (40+i) = 5 ms), R a
// relay that sees one ACK and 150 data segments (in flight up to
// 217 200 − 2 896 = 214 304 B against a 65 535 B window), N the receiver
// (ack samples 1 ms; the handshake's SYN-ACK → ACK 32 − 20 = 12 ms) and O
// a node that only overheard the connection.
func chainCaptures(t *testing.T) [nodes]string {
	t.Helper()
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	mac := func(n int) pcaptest.MAC { return pcaptest.MAC{2, 0, 0, 0, 0, byte(n + 1)} }
	type tx struct {
		ms       float64
		from, to int
		seg      pcaptest.Segment
		ttl      uint8
	}
	var txs []tx
	hop := func(ms float64, from, to int, s pcaptest.Segment, ttl uint8) {
		txs = append(txs, tx{ms, from, to, s, ttl})
	}
	// via sends s over the route at ms, a hop every 2 ms.
	via := func(ms float64, s pcaptest.Segment, route ...int) {
		for i := 0; i+1 < len(route); i++ {
			hop(ms+2*float64(i), route[i], route[i+1], s, uint8(64-i))
		}
	}
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.3:5001"), 1000, 7000)
	via(10, c.Syn(t0, pcaptest.C2S), nodeS, nodeR, nodeN)
	via(20, c.Syn(t0, pcaptest.S2C), nodeN, nodeQ, nodeS)
	via(30, c.Ack(t0, pcaptest.C2S, 1, 65535), nodeS, nodeR, nodeN)
	for i := range 150 {
		via(40+float64(i), c.Data(t0, pcaptest.C2S, 1448), nodeS, nodeR, nodeN)
		if i%2 == 1 {
			route := []int{nodeN, nodeQ, nodeS}
			if i == 1 {
				route = []int{nodeN, nodeR, nodeS}
			}
			via(43+float64(i), c.Ack(t0, pcaptest.S2C, c.Next(pcaptest.C2S), 65535), route...)
		}
	}
	o := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.5:41000"), netip.MustParseAddrPort("10.0.0.9:80"), 1, 1)
	hop(300, nodeO, nodeQ, o.Syn(t0, pcaptest.C2S), 64)
	sort.SliceStable(txs, func(i, j int) bool { return txs[i].ms < txs[j].ms })

	var out [nodes]string
	dir := t.TempDir()
	for _, n := range []int{nodeS, nodeR, nodeN, nodeO} {
		f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRadiotap})
		for _, x := range txs {
			s := x.seg
			s.TTL = x.ttl
			frame := pcaptest.Dot11{TA: mac(x.from), RA: mac(x.to)}.Frame(s.IP())
			at := t0.Add(time.Duration(x.ms * float64(time.Millisecond)))
			switch {
			case x.from == n: // sent: an 8-byte radiotap header with no field
				f.Add(at, 0, append([]byte{0, 0, 8, 0, 0, 0, 0, 0}, frame...))
			case x.to == n || n == nodeO: // decoded: with an antenna signal
				f.Add(at, 0, pcaptest.Radiotap(frame, false))
			}
		}
		out[n] = filepath.Join(dir, fmt.Sprintf("node%d.pcap", n))
		if err := f.WriteFile(out[n]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// readMeta returns the metadata of the report page.
func readMeta(t *testing.T, page []byte) meta {
	t.Helper()
	s := string(page)
	i := strings.Index(s, `id="meta">`) + len(`id="meta">`)
	raw, err := base64.StdEncoding.DecodeString(s[i : i+strings.Index(s[i:], "<")])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// flowOf returns the connection S:40000 → N:5001 of rep.
func flowOf(t *testing.T, rep *tcpanalysis.Report) *tcpanalysis.ConnResult {
	t.Helper()
	for _, r := range rep.Conns {
		if r.Conn.Half[0].Addr.Port() == 40000 {
			return r
		}
	}
	t.Fatalf("%s: no connection from port 40000", rep.File)
	return nil
}

// TestVantageCaveats: the report of the chain's four captures carries,
// per panel of the flow's view, what the verbs print about the capture
// point (query.View.Caveats, the same functions' sentences), and the
// picker names the vantage and shows "–" for the goodput of the relay and
// of the node that only overheard the flow, as compare does.
func TestVantageCaveats(t *testing.T) {
	paths := chainCaptures(t)
	var caps []Capture
	var reps []*tcpanalysis.Report
	for _, n := range []int{nodeS, nodeR, nodeN, nodeO} {
		rep, err := tcpanalysis.AnalyzeFile(paths[n], tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		caps, reps = append(caps, Capture{Report: rep}), append(reps, rep)
	}
	var b bytes.Buffer
	if err := Write(&b, caps, Options{}); err != nil {
		t.Fatal(err)
	}
	m := readMeta(t, b.Bytes())
	view := func(f int) viewMeta {
		r := flowOf(t, reps[f])
		for _, v := range m.Views {
			if c := m.Conns[v.Conn]; c.Cap == f && c.Conn == r.Conn.Index && v.Dir == "ab" {
				return v
			}
		}
		t.Fatalf("capture %d: no view of the flow's ab direction", f)
		return viewMeta{}
	}
	row := func(f int) summary {
		r := flowOf(t, reps[f])
		for _, c := range m.Conns {
			if c.Cap == f && c.Conn == r.Conn.Index {
				return c
			}
		}
		t.Fatalf("capture %d: no picker row of the flow", f)
		return summary{}
	}
	// what is what query's functions say for capture f's flow.
	what := func(f int) (*tcpanalysis.ConnResult, flows.Direction) { return flowOf(t, reps[f]), flows.AtoB }

	type want struct {
		vantage string
		notOwn  bool
		// per panel: notes, titles, warnings (each the sentence itself,
		// checked for a phrase a person can check by hand too)
		panels map[string]caveatsMeta
	}
	r, d := what(0)
	sender := want{"sender's radio", false, map[string]caveatsMeta{
		"rtt": {Titles: []string{"on the sender's radio: samples leave out the time data waited in its queues"}, Notes: []string{query.AirNote(r, d)}},
		"win": {Titles: []string{"in flight on air at the sender's radio: data still queued in its interface is not in it"}, Notes: []string{query.AirFlightNote(r, d)}},
	}}
	r, d = what(1)
	rv := query.ConnView(reps[1], r, d, 0)
	relay := want{"relay", true, map[string]caveatsMeta{
		"seq": {Titles: []string{"at a relay: only the frames routed through it; goodput follows the ACKs seen there"}, Notes: []string{query.RelayNote(r, d)}},
		// No RTT sample: the relay saw neither the SYN-ACK nor a TSval
		// (docs/metrics.md#rtt), so no rtt note and no RTT panel.
		"rtt":  {Titles: []string{"at a relay: samples time only part of the path"}},
		"tput": {Titles: []string{"at a relay: only the frames routed through it; goodput follows the ACKs seen there"}, Notes: []string{query.RelayNote(r, d)}},
		"win": {Titles: []string{"in flight up to 214304 B, over twice the window: ACKs the capture missed", "in flight as seen at a relay, not the sender's: ACKs on another route are missing"},
			Notes: []string{query.InFlightNote(r, d)}, Warnings: []string{rv.FlightOverWindow()}},
		"ev": {Titles: []string{"at a relay: only the retransmissions routed through it"}, Notes: []string{query.RelayNote(r, d)}},
	}}
	r, d = what(2)
	receiver := want{"not beside the sender", false, map[string]caveatsMeta{
		"seq":  {Titles: []string{"as seen at the capture point, not beside the sender: data as it arrived there"}},
		"rtt":  {Titles: []string{"capture point not beside the sender: the rest of the path adds ≤ 12.0 ms at its fastest"}, Notes: []string{query.LegNote(r, d)}},
		"tput": {Titles: []string{"as seen at the capture point, not beside the sender: data as it arrived there"}, Notes: []string{query.SentNote(r, d)}},
		"win":  {Titles: []string{"in flight as seen at the capture point (RTT to the sender ≤ 12.000 ms at its fastest), not the sender's"}, Notes: []string{query.InFlightNote(r, d)}},
		"ev":   {Titles: []string{"as seen at the capture point, not beside the sender: retransmissions of data lost before it are missing"}, Notes: []string{query.RetransNote(r, d)}},
	}}
	r, d = what(3)
	on := query.OverheardNote(r, d)
	ot := []string{"overheard only: the capturing node was neither end nor relay of this connection"}
	overheard := want{"overheard only", true, map[string]caveatsMeta{
		"seq": {Titles: ot, Notes: []string{on}}, "rtt": {Notes: []string{on}}, "tput": {Titles: ot, Notes: []string{on}},
		"win": {Notes: []string{on}}, "ev": {Titles: ot, Notes: []string{on}},
	}}
	phrases := map[string]string{ // a phrase of each note, checked by hand
		query.AirNote(what(0)):      "conn 0: an 802.11 capture on the ab sender's own radio: its data frames are stamped when they went on air",
		query.RelayNote(what(1)):    "conn 0: the capture point is a relay (the capturing node forwarded this connection's frames)",
		rv.FlightOverWindow():       "(up to 214304 B against a 65535 B window, frame ",
		query.LegNote(what(2)):      "ack/ts RTT ab time only capture point → receiver → capture point (smallest 1.000 ms); the other part of the path, capture point → sender → capture point, took 12.000 ms or less",
		query.SentNote(what(2)):     "conn 0: the capture point is not beside the ab sender: the data counted here",
		on:                          "conn 0: the capturing node only overheard this connection (its ",
		query.InFlightNote(what(1)): "beside neither end: bytes in flight are the data seen here less the ACKs seen here",
	}
	for n, p := range phrases {
		if !strings.Contains(n, p) {
			t.Errorf("note %q lacks %q", n, p)
		}
	}
	for f, w := range []want{sender, relay, receiver, overheard} {
		v := view(f)
		if v.Vantage != w.vantage || v.OwnNumbers == w.notOwn {
			t.Errorf("capture %d: view vantage %q own %v, want %q own %v", f, v.Vantage, v.OwnNumbers, w.vantage, !w.notOwn)
		}
		for _, panel := range []string{"seq", "rtt", "tput", "win", "ev"} {
			got, wc := v.Caveats[panel], w.panels[panel]
			if !slices.Equal(got.Titles, wc.Titles) || !slices.Equal(got.Notes, wc.Notes) || !slices.Equal(got.Warnings, wc.Warnings) {
				t.Errorf("capture %d (%s), panel %s:\n got %+v\nwant %+v", f, w.vantage, panel, got, wc)
			}
		}
		s := row(f)
		if s.Vantage != w.vantage || s.NotOwn != w.notOwn {
			t.Errorf("capture %d: picker vantage %q not_own %v, want %q %v", f, s.Vantage, s.NotOwn, w.vantage, w.notOwn)
		}
		if w.notOwn && (s.VantageNote == "" || s.VantageNote != w.panels["tput"].Notes[0]) {
			t.Errorf("capture %d: picker's note %q, want the tput panel's", f, s.VantageNote)
		}
	}
	// The node the capture was taken on, as every verb warns it: only O
	// overheard frames (its own SYN's connection is conn 1).
	for f, c := range m.Captures {
		want := 0
		if f == 3 {
			want = 1
		}
		if len(c.Node) != want || want == 1 && !strings.Contains(c.Node[0], "802.11 capture taken on the node with MAC 02:00:00:00:00:05") ||
			want == 1 && !strings.Contains(c.Node[0], "whose acked and goodput bytes come from overheard ACKs: 1: conn 0)") {
			t.Errorf("capture %d: node %q", f, c.Node)
		}
	}
}

// TestSeriesColours: each series is drawn in the colour the figures draw
// it in (package plot), bytes in flight (tshark's) Okabe–Ito vermillion
// as in the window figure, the SACK-aware line its bluish green; event
// lanes in their class's colour of the events figure; compare's runs in
// the palette.
func TestSeriesColours(t *testing.T) {
	var b bytes.Buffer
	rep, err := tcpanalysis.AnalyzeFile("../testdata/synthetic/geo-600ms-loss.pcap", tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, []Capture{{Report: rep}}, Options{}); err != nil {
		t.Fatal(err)
	}
	m := readMeta(t, b.Bytes())
	got := map[string]string{}
	for _, s := range m.Views[0].Series {
		got[s.ID] = s.Color
	}
	for id, want := range map[string]string{
		"flight": "#d55e00", "flight_sack": "#009e73", "rwnd": "#0072b2", "tput": "#0072b2", "goodput": "#d55e00",
		"rtt_ack": "#0072b2", "rtt_ts": "#d55e00", "rtt_hs": "#009e73", "seg": "#000000", "retx": "#dc1414", "ack": "#009600", "edge": "#b4a000",
	} {
		if got[id] != want {
			t.Errorf("series %s colour %q, want %q", id, got[id], want)
		}
	}
	if c := cssColour(plot.ColInFlight); got["flight"] != c {
		t.Errorf("flight %q, plot.ColInFlight %q", got["flight"], c)
	}
	for i, c := range tcpanalysis.Classes() {
		if g, ok := got["ev_"+c.String()]; ok && g != cssColour(plot.Colour(i)) {
			t.Errorf("event lane %s colour %q, want the events figure's %q", c, g, cssColour(plot.Colour(i)))
		}
	}
	if len(m.Palette) != paletteSize || m.Palette[1] != "#d55e00" {
		t.Errorf("palette %v", m.Palette)
	}
}

// pageText is what the page shows of the view the address names: the
// view's title, every panel's heading and notes, the notes above the
// panels (document.innerText: visible text only), per panel id and "view"
// and "capture".
func pageText(t *testing.T, ctx context.Context, path, hash string) map[string]string {
	t.Helper()
	if eval[string](t, ctx, `location.pathname`) != path {
		openReport(t, ctx, path)
	}
	eval[bool](t, ctx, `window.tcpviz.stale = true, location.hash = '`+hash+`', location.reload(), true`)
	waitReady(t, ctx)
	return eval[map[string]string](t, ctx, `(() => {
		const out = { view: document.getElementById('viewtitle').innerText, capture: document.getElementById('capnotes').innerText };
		for (const [id, P] of Object.entries(window.tcpviz.panels)) {
			if (!document.body.contains(P.u.root)) continue;
			const div = P.u.root.parentNode;
			out[id] = [...div.children].filter(e => e !== P.u.root).map(e => e.innerText).join('\n');
		}
		return out;
	})()`)
}

// pickerRows returns the picker's rows as their cells' text, keyed
// "capture label#conn".
func pickerRows(t *testing.T, ctx context.Context) map[string][]string {
	t.Helper()
	rows := eval[[][]string](t, ctx, `[...document.querySelectorAll('#picker tbody tr')].map(tr => [...tr.children].map(td => td.innerText))`)
	out := map[string][]string{}
	for _, r := range rows {
		out[r[1]+"#"+r[2]] = r
	}
	return out
}

// Picker columns: vantage, goodput a→b.
const (
	colVantage = 5
	colGoodput = 14
)

// checkLayout fails t when a panel's notes reach past the panels' width or
// into the plot under them.
func checkLayout(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	bad := eval[[]string](t, ctx, `(() => {
		const out = [], host = document.getElementById('panels').getBoundingClientRect();
		for (const box of document.querySelectorAll('.caveats')) {
			if (box.hidden) continue;
			const b = box.getBoundingClientRect();
			if (b.right > host.right + 1 || b.width < 200) out.push(box.id + ' spans ' + b.left + '–' + b.right + ', the panels ' + host.left + '–' + host.right);
			const plot = box.parentNode.querySelector('.uplot');
			if (plot && plot.getBoundingClientRect().top < b.bottom) out.push(box.id + ' overlaps its plot');
		}
		return out;
	})()`)
	for _, b := range bad {
		t.Errorf("%s: %s", what, b)
	}
}

// TestBrowserVantage opens the report of the chain's four captures
// (chainCaptures) at the flow's view of each: every panel the verbs
// annotate shows their note beside it (query's sentences, as the CLI
// prints them after "note: " and "warning: "), the figures' title lines
// in its heading, the view's title names the vantage, and the picker
// shows "–" for the relay's and the overhearer's goodput.
func TestBrowserVantage(t *testing.T) {
	ctx, log := browser(t)
	paths := chainCaptures(t)
	files := []string{paths[nodeS], paths[nodeR], paths[nodeN], paths[nodeO]}
	path := filepath.Join(t.TempDir(), "chain.html")
	writeReport(t, path, files, Options{})
	var reps []*tcpanalysis.Report
	for _, f := range files {
		rep, err := tcpanalysis.AnalyzeFile(f, tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	openReport(t, ctx, path)
	ab := flows.AtoB
	r := func(f int) *tcpanalysis.ConnResult { return flowOf(t, reps[f]) }
	rv := query.ConnView(reps[1], r(1), ab, 0)
	for _, c := range []struct {
		f    int
		want map[string][]string // panel → texts it must contain
	}{
		{0, map[string][]string{
			"view": {"[capture point: sender's radio]"},
			"rtt":  {"on the sender's radio: samples leave out the time data waited in its queues", "note: " + query.AirNote(r(0), ab)},
			"win":  {"in flight on air at the sender's radio", "note: " + query.AirFlightNote(r(0), ab)},
		}},
		{1, map[string][]string{
			"view": {"[capture point: relay]"},
			"seq":  {"at a relay: only the frames routed through it", "note: " + query.RelayNote(r(1), ab)},
			"tput": {"at a relay: only the frames routed through it; goodput follows the ACKs seen there", "note: " + query.RelayNote(r(1), ab)},
			"win":  {"in flight up to 214304 B, over twice the window", "warning: " + rv.FlightOverWindow(), "note: " + query.InFlightNote(r(1), ab)},
			// No event at the relay: no events panel (its caveats are
			// TestVantageCaveats').
		}},
		{2, map[string][]string{
			"view": {"[capture point: not beside the sender]"},
			"rtt":  {"capture point not beside the sender: the rest of the path adds ≤ 12.0 ms", "note: " + query.LegNote(r(2), ab)},
			"tput": {"note: " + query.SentNote(r(2), ab)},
			"win":  {"note: " + query.InFlightNote(r(2), ab)},
		}},
		{3, map[string][]string{
			"view":    {"[capture point: overheard only]"},
			"tput":    {"overheard only: the capturing node was neither end nor relay", "note: " + query.OverheardNote(r(3), ab)},
			"capture": {"warning: " + reps[3].File + ": 802.11 capture taken on the node with MAC 02:00:00:00:00:05"},
		}},
	} {
		hash := fmt.Sprintf("f=%d&c=%d&d=ab", c.f, r(c.f).Conn.Index)
		got := pageText(t, ctx, path, hash)
		for panel, wants := range c.want {
			for _, w := range wants {
				if !strings.Contains(got[panel], w) {
					t.Errorf("#%s, %s: %q lacks %q", hash, panel, got[panel], w)
				}
			}
		}
		checkLayout(t, ctx, "#"+hash)
		if c.f == 1 {
			png, _ := screenshot(t, ctx, "body")
			saveShot(t, "report-relay.png", png)
		}
	}
	rows := pickerRows(t, ctx)
	for f, want := range []struct{ vantage, goodput string }{{"sender's radio", "bit/s"}, {"relay", "– (relay)"}, {"not beside the sender", "bit/s"}, {"overheard only", "– (overheard only)"}} {
		row := rows[fmt.Sprintf("node%d.pcap#%d", []int{nodeS, nodeR, nodeN, nodeO}[f], r(f).Conn.Index)]
		if len(row) <= colGoodput || row[colVantage] != want.vantage || !strings.Contains(row[colGoodput], want.goodput) {
			t.Errorf("capture %d: picker row %q, want vantage %q, goodput %q", f, row, want.vantage, want.goodput)
		}
	}
	if msgs := log.all(); len(msgs) > 0 {
		t.Errorf("console: %v", msgs)
	}
}

// TestBrowserVantageNS3: the outside tester's report of ns-3 aodv r1
// (shared/ns3; skipped when absent): at node 1, a relay of flow 0 (conn
// 1), the goodput and in-flight panels say so, in flight is flagged
// against the window (3 094 376 B against 131 072 B, docs/metrics.md);
// the picker shows "–" for the goodput of node 1 and node 5 (a relay of
// 38 packets), and the sink's (node 10) 817.2 kbit/s beside "not beside
// the sender"; node 1's conn 3, only overheard, says so; the sender's own
// capture (node 2), opened at its default view, notes that its RTT
// samples leave out its queues.
func TestBrowserVantageNS3(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	ctx, log := browser(t)
	var files []string
	for _, n := range []int{1, 10, 2, 5} {
		files = append(files, filepath.Join(ns3, fmt.Sprintf("tcp-aodv-r1-%d-0.pcap.gz", n)))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "aodv.html")
	writeReport(t, path, files, Options{})
	openReport(t, ctx, path)
	for _, c := range []struct {
		hash string
		want map[string][]string
	}{
		{"f=0&c=1&d=ab", map[string][]string{
			"view": {"[capture point: relay]"},
			"seq":  {"note: conn 1: the capture point is a relay (the capturing node forwarded this connection's frames)"},
			"tput": {"at a relay: only the frames routed through it; goodput follows the ACKs seen there", "note: conn 1: the capture point is a relay"},
			"rtt":  {"at a relay: samples time only part of the path", "note: conn 1: the capture point is not beside the ab sender (a relay"},
			"win": {"in flight up to 3094376 B, over twice the window: ACKs the capture missed", "in flight as seen at a relay, not the sender's",
				"warning: conn 1: bytes in flight ab exceed twice the receive window at 21 points (up to 3094376 B against a 131072 B window, frame 14527)"},
			"ev":      {"note: conn 1: the capture point is a relay"},
			"capture": {"802.11 capture taken on the node with MAC 00:00:00:00:00:02"},
		}},
		{"f=0&c=3&d=ab", map[string][]string{
			"view": {"[capture point: overheard only]"},
			"tput": {"note: conn 3: the capturing node only overheard this connection (its 52 frames here were all addressed to other nodes)"},
		}},
		{"f=1&c=1&d=ab", map[string][]string{
			"view": {"[capture point: not beside the sender]"},
			"rtt":  {"note: conn 1: the capture point is not beside the ab sender: ack/ts RTT ab time only capture point → receiver → capture point (smallest 0.308 ms)"},
			"tput": {"note: conn 1: the capture point is not beside the ab sender: the data counted here"},
		}},
		{"f=2&c=1&d=ab", map[string][]string{
			"view": {"[capture point: sender's radio]"},
			"rtt":  {"on the sender's radio: samples leave out the time data waited in its queues", "note: conn 1: an 802.11 capture on the ab sender's own radio"},
		}},
	} {
		got := pageText(t, ctx, path, c.hash)
		for panel, wants := range c.want {
			for _, w := range wants {
				if !strings.Contains(got[panel], w) {
					t.Errorf("#%s, %s: %q lacks %q", c.hash, panel, got[panel], w)
				}
			}
		}
		checkLayout(t, ctx, "#"+c.hash)
		if c.hash == "f=0&c=1&d=ab" {
			png, _ := screenshot(t, ctx, "body")
			saveShot(t, "report-ns3-relay.png", png)
		}
	}
	rows := pickerRows(t, ctx)
	for key, want := range map[string][2]string{
		"tcp-aodv-r1-1-0.pcap.gz#1":  {"relay", "– (relay)"},
		"tcp-aodv-r1-5-0.pcap.gz#1":  {"relay", "– (relay)"},
		"tcp-aodv-r1-1-0.pcap.gz#3":  {"overheard only", "– (overheard only)"},
		"tcp-aodv-r1-10-0.pcap.gz#1": {"not beside the sender", "817.2 kbit/s"},
		"tcp-aodv-r1-2-0.pcap.gz#1":  {"sender's radio", "kbit/s"},
	} {
		if row := rows[key]; len(row) <= colGoodput || row[colVantage] != want[0] || row[colGoodput] != want[1] && !strings.HasSuffix(row[colGoodput], want[1]) {
			t.Errorf("picker row %s = %q, want vantage %q, goodput %q", key, row, want[0], want[1])
		}
	}
	// The sender's own capture alone opens at flow 0 (its largest
	// connection), whose RTT panel says what its samples leave out.
	one := filepath.Join(dir, "sender.html")
	writeReport(t, one, files[2:3], Options{})
	got := pageText(t, ctx, one, "")
	if w := "on the sender's radio: samples leave out the time data waited in its queues"; !strings.Contains(got["rtt"], w) || !strings.Contains(got["view"], "conn 1, data 10.1.0.3:49152 → 10.1.0.11:9000") {
		t.Errorf("sender's capture, default view %q: rtt %q lacks %q", got["view"], got["rtt"], w)
	}
	if msgs := log.all(); len(msgs) > 0 {
		t.Errorf("console: %v", msgs)
	}
}

// TestCompareVantage: compare mode of the chain's sink, relay and
// overhearer (report.WriteCompare, 'tcpviz compare -o x.html'): the
// relay's and the overhearer's end-to-end goodput is "–" as in compare's
// table (compare.Summary), the sink's its value; in the page, the title
// names each run's vantage and shows the "–", and each panel gives each
// run's notes after its label.
func TestCompareVantage(t *testing.T) {
	paths := chainCaptures(t)
	var runs []compare.Run
	for _, n := range []int{nodeN, nodeR, nodeO} {
		rep, err := tcpanalysis.AnalyzeFile(paths[n], tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		label := map[int]string{nodeN: "sink", nodeR: "relay", nodeO: "overhearer"}[n]
		run, err := compare.NewRun(compare.Spec{Label: label, File: paths[n], Conn: 0}, rep, flowOf(t, rep), flows.AtoB, "bulk")
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	rows := compare.Summary(runs, nil, 0)
	for _, row := range rows {
		if strings.HasPrefix(row.Metric, "goodput end to end") && (math.IsNaN(row.Values[0]) || !math.IsNaN(row.Values[1]) || !math.IsNaN(row.Values[2])) {
			t.Errorf("compare's %s row %v, want the sink's value and – for the others", row.Metric, row.Values)
		}
	}
	out := filepath.Join(t.TempDir(), "cmp.html")
	if err := WriteCompare(out, runs, "bulk", 0, io.Discard); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := readMeta(t, page)
	if len(m.Compare) != 3 || m.Compare[0].E2E == nil || m.Compare[1].E2E != nil || m.Compare[2].E2E != nil {
		t.Fatalf("compare runs %+v: want the sink's end-to-end goodput only", m.Compare)
	}

	ctx, log := browser(t)
	openReport(t, ctx, out)
	got := pageText(t, ctx, out, "")
	// The overhearer has no bulk segment: compare aligns it at its
	// first packet and its label says so.
	ov := "overhearer (aligned at the connection's first packet)"
	for panel, wants := range map[string][]string{
		"view": {"sink [capture point: not beside the sender] vs relay [capture point: relay] vs " + ov + " [capture point: overheard only]", "goodput end to end (as tcpviz compare): sink ", "bit/s, relay –, " + ov + " –"},
		"tput": {"sink: as seen at the capture point, not beside the sender", "relay: at a relay: only the frames routed through it", "note: relay: " + query.RelayNote(runs[1].Result, flows.AtoB), "note: " + ov + ": " + query.OverheardNote(runs[2].Result, flows.AtoB)},
		"win":  {"warning: relay: conn 0: bytes in flight ab exceed twice the receive window"},
	} {
		for _, w := range wants {
			if !strings.Contains(got[panel], w) {
				t.Errorf("compare mode, %s: %q lacks %q", panel, got[panel], w)
			}
		}
	}
	checkLayout(t, ctx, "compare mode")
	if msgs := log.all(); len(msgs) > 0 {
		t.Errorf("console: %v", msgs)
	}
}
