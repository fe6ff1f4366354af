package pep

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// The link addresses of onLinkCapture: the sender's, the acknowledger's
// (the receiver's own interface, or a PEP's: the capture cannot tell),
// and another host's.
var (
	senderMAC = pcaptest.MAC{2, 0, 0, 0, 0, 0x01}
	ackerMAC  = pcaptest.MAC{2, 0, 0, 0, 0, 0x02}
	otherMAC  = pcaptest.MAC{2, 0, 0, 0, 0, 0x03}
	bcastMAC  = pcaptest.MAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

// onLinkOpts are the extras onLinkCapture adds to its Ethernet capture.
type onLinkOpts struct {
	stall      bool // the receiver closes its window at 101 ms and never reopens it
	arpRequest bool // ackerMAC asks for 10.0.0.9 from 10.0.1.1 (ARP op 1): its own address
	arpReply   bool // ackerMAC answers for 10.0.1.1 (ARP op 2): proxy ARP does it too
	broadcast  bool // ackerMAC sends a UDP broadcast from 10.0.1.1
	forwarded  bool // ackerMAC also carries 10.0.1.1's TCP of another connection at TTL 63
	twoMACs    bool // one of the receiver's ACKs comes from otherMAC
}

// onLinkCapture writes an Ethernet capture taken beside the sender
// 10.0.0.1 (its packets carry TTL 64) of a connection to 10.0.1.1, whose
// packets (TTL 64: 0 hops) come from ackerMAC: SYN at 0, SYN-ACK at 10 ms,
// the sender's ACK 0.1 ms later, then ten 1000-byte segments 10 ms apart,
// each acknowledged 10 ms later, window open (or, with stall, shut at the
// last ACK until the sender's last packet 1 s later). The acknowledger is
// on the sender's link, 100× slower than the sender: a receiver there or a
// PEP; o adds the link-layer frames that may tell which.
func onLinkCapture(t *testing.T, o onLinkOpts) string {
	t.Helper()
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkEthernet})
	cli, srv := netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.1.1:80")
	c := pcaptest.NewConn(cli, srv, 100, 900)
	t0 := pcaptest.GenStart
	ms := time.Millisecond
	add := func(s pcaptest.Segment) {
		e := pcaptest.Eth{Src: senderMAC, Dst: ackerMAC}
		if s.Dir == pcaptest.S2C {
			e = pcaptest.Eth{Src: ackerMAC, Dst: senderMAC}
		}
		f.Add(s.T, 0, e.Frame(s.IP()))
	}
	add(c.Syn(t0, pcaptest.C2S))
	add(c.Syn(t0.Add(10*ms), pcaptest.S2C))
	add(c.Ack(t0.Add(10*ms+100*time.Microsecond), pcaptest.C2S, 1, 65535))
	for i := range 10 {
		ts := t0.Add(11*ms + time.Duration(i)*10*ms)
		add(c.Data(ts, pcaptest.C2S, 1000))
		win := uint16(65535)
		if o.stall && i == 9 {
			win = 0
		}
		a := c.Ack(ts.Add(10*ms), pcaptest.S2C, uint32(1+1000*(i+1)), win)
		if o.twoMACs && i == 5 {
			f.Add(a.T, 0, pcaptest.Eth{Src: otherMAC, Dst: senderMAC}.Frame(a.IP()))
			continue
		}
		add(a)
	}
	end := t0.Add(time.Second + 200*ms)
	add(c.Ack(end, pcaptest.C2S, 1, 65535))
	at := t0.Add(500 * ms)
	if o.arpRequest || o.arpReply {
		op := uint16(1)
		dst := bcastMAC
		if o.arpReply {
			op, dst = 2, senderMAC
		}
		arp := append(append(append([]byte{}, dst[:]...), ackerMAC[:]...), 0x08, 0x06, 0, 1, 0x08, 0, 6, 4)
		arp = binary.BigEndian.AppendUint16(arp, op)
		arp = append(append(append(arp, ackerMAC[:]...), 10, 0, 1, 1), 0, 0, 0, 0, 0, 0, 10, 0, 0, 9)
		f.Add(at, 0, arp)
	}
	if o.broadcast {
		// IPv4 UDP from 10.0.1.1 to 10.0.1.255 (a routing hello), TTL 1.
		ip := []byte{0x45, 0, 0, 28, 0, 1, 0, 0, 1, 17, 0, 0, 10, 0, 1, 1, 10, 0, 1, 255, 0x02, 0x8e, 0x02, 0x8e, 0, 8, 0, 0}
		f.Add(at, 0, pcaptest.Eth{Src: ackerMAC, Dst: bcastMAC}.Frame(ip))
	}
	if o.forwarded {
		s := pcaptest.TCP{Src: netip.MustParseAddrPort("10.0.1.1:22"), Dst: netip.MustParseAddrPort("10.0.0.5:50000"), Flags: pcaptest.ACK, TTL: 63}
		f.Add(at, 0, pcaptest.Eth{Src: ackerMAC, Dst: otherMAC}.Frame(s.IP()))
	}
	path := filepath.Join(t.TempDir(), "onlink.pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// onLink analyses onLinkCapture(o) with detail and returns its path and
// connection.
func onLink(t *testing.T, o onLinkOpts) (string, *tcpanalysis.Report, *tcpanalysis.ConnResult) {
	t.Helper()
	path := onLinkCapture(t, o)
	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Conns {
		if r.Conn.Half[1].Addr.Port() == 80 {
			return path, rep, r
		}
	}
	t.Fatal("no connection to port 80")
	return "", nil, nil
}

// TestPossibleOnLink: an acknowledger on the sender's link that never
// closes its window (the testbed's PEP with large buffers, an on-link
// server alike) is Possible: receiver-hops is open (unknown), nothing
// supports, the end-to-end RTT is unknown, and the note says what is
// unknown and how to decide (--path-rtt, the CLIENT+SERVER pair). The
// link layer read (DetectIn, Evidence) names the acknowledger's address
// but nothing about it decides. A path RTT decides both ways: 600 ms
// proves a PEP (the connection's 10.1 ms is below a quarter), 30 ms
// rules one out (10.1 ms is at least a quarter: the far end answered).
func TestPossibleOnLink(t *testing.T) {
	path, rep, r := onLink(t, onLinkOpts{})
	v := Detect(r, flows.AtoB)
	hops, _ := item(v, "receiver-hops")
	if !v.Possible || v.Likely || !hops.Open || hops.Supports || len(v.Supporting()) != 0 || v.FarRTT != 0 || v.Mark() != "PEP?" || !v.Flagged() {
		t.Fatalf("Detect: Possible %v Likely %v, receiver-hops %+v, supporting %v, FarRTT %v, mark %q", v.Possible, v.Likely, hops, v.Supporting(), v.FarRTT, v.Mark())
	}
	if !v.LinkMatters() {
		t.Error("LinkMatters = false before the link layer was read")
	}
	note := v.NoteOn(0)
	for _, w := range []string{"conn 0: data ab may be acknowledged by a split-TCP PEP: unknown", "receiver-hops is open", "10.0 ms against the sender's own 100 µs",
		"link layer not read", "(marked PEP?)", "--path-rtt", "'tcpviz compare LABEL=CLIENT+SERVER'"} {
		if !strings.Contains(note, w) {
			t.Errorf("note lacks %q:\n%s", w, note)
		}
	}
	var b bytes.Buffer
	if err := v.Write(&b, " for x", "--path-rtt"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"unknown: the acknowledger is on the sender's link", "receiver-hops         unknown", "end-to-end RTT: unknown — the 10.000 ms above is to the acknowledger"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("Write lacks %q:\n%s", w, b.String())
		}
	}

	// The link layer read: the acknowledger's address, nothing more.
	for name, lv := range map[string]Verdict{"DetectIn": DetectIn(rep, r, flows.AtoB, Options{}), "Evidence": evidenceVerdict(t, path, rep, r, 0)} {
		li, ok := item(lv, "link-address")
		if !lv.Possible || !ok || !li.Open || !strings.Contains(li.Observed, "02:00:00:00:00:02") || lv.LinkMatters() {
			t.Errorf("%s: Possible %v, link-address %+v (present %v), LinkMatters %v", name, lv.Possible, li, ok, lv.LinkMatters())
		}
		if w := lv.PossibleWhy(); !strings.Contains(w, "its link address 02:00:00:00:00:02 never announced the receiver's address") {
			t.Errorf("%s: PossibleWhy %q", name, w)
		}
	}

	proven := DetectWith(r, flows.AtoB, Options{PathRTT: 600 * time.Millisecond})
	if !proven.Likely || !proven.Proven() || proven.Possible || proven.FarRTT != 600*time.Millisecond || proven.Mark() != "PEP" {
		t.Errorf("path RTT 600 ms: Likely %v Proven %v Possible %v FarRTT %v", proven.Likely, proven.Proven(), proven.Possible, proven.FarRTT)
	}
	ruled := DetectWith(r, flows.AtoB, Options{PathRTT: 30 * time.Millisecond})
	rh, _ := item(ruled, "receiver-hops")
	if ruled.Likely || ruled.Possible || rh.Open || !strings.Contains(rh.Observed, "decided by conn-rtt-vs-path") || ruled.NoteOn(0) != "" || ruled.FarRTT != 30*time.Millisecond {
		t.Errorf("path RTT 30 ms: Likely %v Possible %v, receiver-hops %+v, note %q", ruled.Likely, ruled.Possible, rh, ruled.NoteOn(0))
	}

	// 'tcpviz flows': the first pass without detail, then the second look
	// (the link layer).
	flat, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	notes, likely, possible := FlowNotes(path, flat, tcpanalysis.Options{}, 0)
	if len(notes) != 1 || len(likely) != 0 || possible[0] != flows.AtoB || !strings.Contains(notes[0], "never announced") {
		t.Errorf("FlowNotes = %q, %v, %v", notes, likely, possible)
	}
	if notes, likely, possible := FlowNotes(path, flat, tcpanalysis.Options{}, 600*time.Millisecond); len(notes) != 1 || likely[0] != flows.AtoB || len(possible) != 0 {
		t.Errorf("FlowNotes with a path RTT of 600 ms = %q, %v, %v", notes, likely, possible)
	}

	// tput's rows and the figures' legend.
	rows := AcceptedRows([][]string{{"acked after 1 s", "x"}, {"goodput", "y"}}, v)
	if rows[0][0] != "acked (receiver or PEP?) after 1 s" || rows[1][0] != "goodput or accepted by PEP? (unknown: see note)" {
		t.Errorf("AcceptedRows: %v", rows)
	}
	if l := AckLegend(v); !strings.Contains(l, "PEP? (unknown") {
		t.Errorf("AckLegend: %q", l)
	}
}

// evidenceVerdict is 'rtt --pep”s verdict on r of the capture at path:
// DetectWith its per-packet evidence (which carries the link layer).
func evidenceVerdict(t *testing.T, path string, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, pathRTT time.Duration) Verdict {
	t.Helper()
	ps, err := Evidence(path, r.Conn.Index)
	if err != nil {
		t.Fatal(err)
	}
	return DetectWith(r, flows.AtoB, Options{PathRTT: pathRTT, Packets: ps, Links: LinksOf(rep)})
}

// TestLinkAddressDecides: what the link layer may decide about an
// acknowledger on the sender's link. An ARP request or an IPv4 broadcast
// from the receiver's address, sent by the acknowledger's link address,
// shows the receiver's own interface: no PEP — and no PEP either when it
// stalls (receiver-hops no longer supports, zero-window-stall alone does
// not make a verdict), which is the shared case zero_window_probe's
// ambiguity resolved. An ARP reply proves nothing (a proxy-ARP router
// answers for others), nor does that address forwarding the receiver's
// packets at TTL 63 (a host forwarding a port to a container does it),
// nor an acknowledger whose packets come from two link addresses.
func TestLinkAddressDecides(t *testing.T) {
	for _, c := range []struct {
		name             string
		o                onLinkOpts
		possible, likely bool
		own              string // LinkFacts.Own
		why              string // in the receiver-hops or link-address observation
	}{
		{"ARP request", onLinkOpts{arpRequest: true}, false, false, "ARP request", "the receiver itself, not a PEP"},
		{"IPv4 broadcast", onLinkOpts{broadcast: true}, false, false, "IPv4 broadcast", "the receiver itself, not a PEP"},
		{"stall, own ARP request", onLinkOpts{stall: true, arpRequest: true}, false, false, "ARP request", "the receiver itself, not a PEP"},
		{"stall, nothing else", onLinkOpts{stall: true}, false, true, "", "an on-link acknowledger that stalls"},
		{"ARP reply (proxy ARP)", onLinkOpts{arpReply: true}, true, false, "", "never announced the receiver's address"},
		{"forwards at TTL 63", onLinkOpts{forwarded: true}, true, false, "", "a host forwarding some ports to a container behind it"},
		{"two link addresses", onLinkOpts{twoMACs: true}, true, false, "", "the receiver's packets came from several link addresses"},
	} {
		path, rep, r := onLink(t, c.o)
		links := LinksOf(rep)
		f := links.Facts(SourceOf(r, flows.BtoA))
		if f.Own != c.own {
			t.Errorf("%s: Own %q, want %q (%+v)", c.name, f.Own, c.own, f)
		}
		if f.Forwards != c.o.forwarded || (c.o.forwarded && (f.FwdTTL != 63 || f.HighTTL != 64)) {
			t.Errorf("%s: Forwards %v (%d..%d)", c.name, f.Forwards, f.FwdTTL, f.HighTTL)
		}
		for name, v := range map[string]Verdict{"DetectIn": DetectIn(rep, r, flows.AtoB, Options{}), "Evidence": evidenceVerdict(t, path, rep, r, 0),
			"WithLinks": Detect(r, flows.AtoB).WithLinks(links)} {
			text := ""
			for _, it := range v.Evidence {
				text += it.Observed + "\n"
			}
			if v.Possible != c.possible || v.Likely != c.likely || !strings.Contains(text, c.why) {
				t.Errorf("%s, %s: Possible %v Likely %v (%v), want %v %v with %q in\n%s", c.name, name, v.Possible, v.Likely, v.Supporting(), c.possible, c.likely, c.why, text)
			}
		}
	}
}

// TestLoopbackNotPossible: a receiver at a loopback address (the corpus's
// zeek-http-iso-download, 127.0.0.1 both ends, here by hand: 10 ms to the
// receiver, 0.1 ms to the sender) is the capturing host itself, not a
// remote host a PEP could answer for: receiver-hops rules it out.
func TestLoopbackNotPossible(t *testing.T) {
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkRaw})
	c := pcaptest.NewConn(netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("127.0.0.1:80"), 100, 900)
	t0, ms := pcaptest.GenStart, time.Millisecond
	segs := []pcaptest.Segment{c.Syn(t0, pcaptest.C2S), c.Syn(t0.Add(10*ms), pcaptest.S2C), c.Ack(t0.Add(10*ms+100*time.Microsecond), pcaptest.C2S, 1, 65535)}
	for i := range 5 {
		ts := t0.Add(11*ms + time.Duration(i)*10*ms)
		segs = append(segs, c.Data(ts, pcaptest.C2S, 1000), c.Ack(ts.Add(10*ms), pcaptest.S2C, uint32(1+1000*(i+1)), 65535))
	}
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	path := filepath.Join(t.TempDir(), "lo.pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	v := Detect(rep.Conns[0], flows.AtoB)
	h, _ := item(v, "receiver-hops")
	if v.Possible || v.Likely || h.Open || !strings.Contains(h.Observed, "is a loopback address, the capturing host's own") {
		t.Errorf("loopback: Possible %v Likely %v, receiver-hops %+v", v.Possible, v.Likely, h)
	}
}

// TestLinksBounded: a Links table keeps at most MaxLinkEntries entries and
// says so; what it recorded stays, and a fact it has no entry for decides
// nothing, never guessed. Each connection here has its receiver's packets
// from one link address at TTL 64 and 63 (a router or a NAT host: one
// entry each), from distinct receiver addresses.
func TestLinksBounded(t *testing.T) {
	l := &Links{}
	conn := func(i int) *tcpanalysis.ConnResult {
		src := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		r := &tcpanalysis.ConnResult{Summary: tcpanalysis.Summary{Conn: &flows.Conn{}}}
		r.Conn.Half[0].Addr, r.Conn.Half[1].Addr = netip.AddrPortFrom(src, 80), netip.MustParseAddrPort("10.9.9.9:40000")
		r.Dir[0].NLinks, r.Dir[0].Links[0] = 1, tcpanalysis.LinkSource{Addr: ackerMAC, MinTTL: 63, MaxTTL: 64}
		r.Dir[0].Link0, r.Dir[0].Link0N, r.Dir[0].Link0TTL = ackerMAC, 1, 64
		return r
	}
	for i := range MaxLinkEntries + 10 {
		l.AddConn(conn(i))
	}
	if !l.Full || l.keys != MaxLinkEntries {
		t.Errorf("Full %v, keys %d", l.Full, l.keys)
	}
	if f := l.Facts(SourceOf(conn(0), flows.AtoB)); !f.Known || !f.Forwards || f.FwdTTL != 63 || f.HighTTL != 64 {
		t.Errorf("first entry lost: %+v", f)
	}
	if f := l.Facts(SourceOf(conn(MaxLinkEntries+5), flows.AtoB)); !f.Known || f.Forwards {
		t.Errorf("an entry past the bound: %+v", f)
	}
	var none *Links
	if f := none.Facts(SourceOf(conn(0), flows.AtoB)); f.Known || f.Why != "link layer not read" {
		t.Errorf("nil Links: %+v", f)
	}
}

// TestNonStallingPEPTestbed: the testbed's PEP with a sender slowed by a
// 4 Mbit/s LAN never closes its window (testdata/sat-pair/pep-on_lan-4Mbit:
// 'tcpviz testbed sat --duration 2s --pep --lan-rate 4Mbit', both sides
// captured). The client capture alone cannot tell the PEP from an on-link
// server: Possible, with the router's address 02:77:00:01:00:01 named and
// undecided (the capture holds TCP only). The path RTT the sidecar gives
// (2 × (300 + 5) ms) proves the PEP; the pair's end-to-end goodput is
// iperf3's received rate (641.6 kbit/s) within 1 %, while the client
// capture's acknowledged rate is over three times it.
func TestNonStallingPEPTestbed(t *testing.T) {
	dir := "../testdata/sat-pair/pep-on_lan-4Mbit"
	var sc struct {
		RecvBps float64 `json:"iperf_recv_bps"`
		Config  struct {
			PEP bool `json:"pep"`
			Sat struct {
				Delay time.Duration `json:"delay_ns"`
			} `json:"sat"`
			LAN struct {
				Rate  float64       `json:"rate_bps"`
				Delay time.Duration `json:"delay_ns"`
			} `json:"lan"`
		} `json:"config"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "client.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sc); err != nil || !sc.Config.PEP || sc.Config.LAN.Rate != 4e6 {
		t.Fatalf("sidecar: %v %+v", err, sc)
	}
	client, server := filepath.Join(dir, "client.pcap.gz"), filepath.Join(dir, "server.pcap.gz")
	crep, srep := analyze(t, client), analyze(t, server)
	r := crep.Conns[1] // iperf3's data connection; conn 0 is its control connection
	if r.Dir[flows.AtoB].Unique < 1e6 {
		t.Fatalf("conn 1 carried %d bytes", r.Dir[flows.AtoB].Unique)
	}
	v := evidenceVerdict(t, client, crep, r, 0)
	li, _ := item(v, "link-address")
	if !v.Possible || v.Likely || !li.Open || !strings.Contains(li.Observed, "02:77:00:01:00:01") {
		t.Errorf("client capture: Possible %v Likely %v, link-address %+v", v.Possible, v.Likely, li)
	}
	if z, _ := item(v, "zero-window-stall"); z.Supports || z.Value != 0 {
		t.Errorf("zero-window-stall %+v: the PEP never closed its window", z)
	}
	path := 2 * (sc.Config.Sat.Delay + sc.Config.LAN.Delay)
	if p := evidenceVerdict(t, client, crep, r, path); !p.Proven() || p.FarRTT != path {
		t.Errorf("path RTT %v: Proven %v, FarRTT %v", path, p.Proven(), p.FarRTT)
	}
	res, err := Split(client, crep, server, srep)
	if err != nil {
		t.Fatal(err)
	}
	var data *SplitResult
	for i := range res {
		if res[i].Client == 1 {
			data = &res[i]
		}
	}
	want := sc.RecvBps / 1000
	if data == nil || data.SameConn || math.Abs(data.GoodputKbps-want) > 0.01*want {
		t.Fatalf("pair: %+v, want end-to-end %.1f kbit/s ± 1 %%", data, want)
	}
	if acked := r.GoodputKbps(flows.AtoB); acked < 3*want {
		t.Errorf("client capture's acknowledged rate %.1f kbit/s, want over 3 × %.1f", acked, want)
	}
}
