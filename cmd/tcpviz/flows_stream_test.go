package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestFlowsStreamedAsReport: the streamed flows CSV, table and JSON
// (flowsStreamed) are byte for byte what the whole-report path writes, for
// a capture where connections end while it is read and out of index
// order, and conn 0 needs the second PEP pass (pep.NeedsDetail: one
// criterion supports a PEP, a zero-window event was seen), so its row is
// held until the end of the file.
func TestFlowsStreamedAsReport(t *testing.T) {
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkRaw})
	srv := netip.MustParseAddrPort("10.9.0.1:80")
	t0 := pcaptest.GenStart
	ms := time.Millisecond
	add := func(segs ...pcaptest.Segment) {
		for _, s := range segs {
			f.Add(s.T, 0, s.IP())
		}
	}
	// conn 0: the capture sits next to the sender: SYN → SYN-ACK 200 ms,
	// SYN-ACK → ACK 0.1 ms; the receiver shuts its window once, briefly.
	c0 := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), srv, 100, 900)
	add(c0.Syn(t0, pcaptest.C2S), c0.Syn(t0.Add(200*ms), pcaptest.S2C), c0.Ack(t0.Add(200*ms+100*time.Microsecond), pcaptest.C2S, 1, 65535))
	add(c0.Data(t0.Add(201*ms), pcaptest.C2S, 1000), c0.Ack(t0.Add(401*ms), pcaptest.S2C, 1001, 0), c0.Ack(t0.Add(402*ms), pcaptest.S2C, 1001, 65535))
	// conns 1 and 2: short, closed at once, over long before the end and
	// so streamed before conn 0, which stays open.
	for i, start := range []time.Duration{time.Second, 2 * time.Second} {
		c := pcaptest.NewConn(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(i)}), 5000), srv, 7, 8)
		ts := t0.Add(start)
		add(c.Handshake(ts, ms)...)
		add(c.Data(ts.Add(2*ms), pcaptest.C2S, 10), c.Fin(ts.Add(3*ms), pcaptest.C2S), c.Fin(ts.Add(4*ms), pcaptest.S2C), c.Ack(ts.Add(5*ms), pcaptest.C2S, 2, 65535))
	}
	// conn 3: 70 000 segments 20 s on, so that the analysis checks which
	// connections are over while the capture is read.
	c3 := pcaptest.NewConn(netip.MustParseAddrPort("10.0.2.1:6000"), srv, 5, 6)
	add(c3.Handshake(t0.Add(20*time.Second), ms)...)
	for i := range 70000 {
		add(c3.Data(t0.Add(20*time.Second+time.Duration(i)*time.Microsecond), pcaptest.C2S, 10))
	}
	path := filepath.Join(t.TempDir(), "held.pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r0 := rep.Conns[0]
	if v := pep.Acknowledger(r0, 0); !pep.NeedsDetail(r0, v.Dir, v) {
		t.Fatalf("conn 0 does not need the second pass: %+v", v)
	}
	notes, likely, possible := pep.FlowNotes(path, rep, tcpanalysis.Options{}, 0)
	for _, format := range []string{"--csv", "", "--json"} {
		ff := export.NewFlowsFile(path, rep, format == "--json")
		ff.SetPEP(notes, likely, possible)
		var want bytes.Buffer
		switch format {
		case "--csv":
			err = export.WriteFlowsCSV(&want, []export.FlowsFile{ff})
		case "":
			err = export.WriteFlowsTable(&want, []export.FlowsFile{ff})
		case "--json":
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			err = enc.Encode(map[string]any{"schema": export.FlowsSchema, "files": []export.FlowsFile{ff}})
		}
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"flows", path}
		if format != "" {
			args = []string{"flows", format, path}
		}
		got, _, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		if got != want.String() {
			t.Errorf("flows %s: streamed\n%s\nwhole report\n%s", format, got, want.String())
		}
	}
}

// TestFlowsSpoolLeavesNothing: the streamed table and JSON keep their rows
// in a temporary file that is gone when flows returns, and without a
// usable temporary directory they keep them in memory, with the same
// output.
func TestFlowsSpoolLeavesNothing(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t, "corpus"), "ns3-tcp-bulk-send-0-0.pcap")
	for _, format := range []string{"--json", "--csv", "--table"} {
		args := []string{"flows", format, path}
		if format == "--table" {
			args = []string{"flows", path}
		}
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		want, _, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("flows %s left %d files in TMPDIR, e.g. %s", format, len(left), left[0].Name())
		}
		t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
		got, _, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || !strings.Contains(want, "10.1.") {
			t.Errorf("flows %s without a temporary directory: %d bytes, with one %d", format, len(got), len(want))
		}
	}
}

// TestPossiblePEPsAdd: possiblePEPs.add keeps the verdicts of the 2 ×
// maxConnNotes lowest indexes, counts every one and names the first
// connection of each data direction in maybe, whatever the order the
// connections end in (mostly ascending, or shuffled).
func TestPossiblePEPsAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for round := range 200 {
		idx := rng.Perm(50 + rng.IntN(200))
		if round%2 == 0 {
			slices.Sort(idx)
			for k := range idx { // a few late ones
				if j := k + rng.IntN(8); j < len(idx) && rng.IntN(4) == 0 {
					idx[k], idx[j] = idx[j], idx[k]
				}
			}
		}
		var p possiblePEPs
		maybe := map[int]flows.Direction{}
		wantMaybe := map[int]flows.Direction{}
		var seen [2]bool
		for _, i := range idx {
			d := flows.Direction(rng.IntN(2))
			p.add(i, pep.Verdict{Dir: d, Possible: true}, maybe)
			if !seen[d] {
				seen[d], wantMaybe[i] = true, d
			}
		}
		low := slices.Sorted(slices.Values(idx))[:2*maxConnNotes]
		if got := slices.Sorted(maps.Keys(p.v)); !slices.Equal(got, low) || p.n != len(idx) || !maps.Equal(maybe, wantMaybe) {
			t.Fatalf("round %d: kept %v (want %v), n %d (want %d), maybe %v (want %v)", round, got, low, p.n, len(idx), maybe, wantMaybe)
		}
	}
}
