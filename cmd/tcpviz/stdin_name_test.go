package main

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// faultConn returns a pcap (or pcapng) of one short connection —
// handshake, 1000 payload bytes, FINs, 10 ms apart — whose fourth record
// (the data) gives 20 as its original length, below its captured length:
// a capture every reader warns about.
func faultConn(format pcaptest.Format) []byte {
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.10:40000"), netip.MustParseAddrPort("198.51.100.20:80"), 100, 500)
	t0 := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * 10 * time.Millisecond) }
	segs := []pcaptest.Segment{c.Syn(at(0), pcaptest.C2S), c.Syn(at(1), pcaptest.S2C), c.Ack(at(2), pcaptest.C2S, 1, 65535),
		c.Data(at(3), pcaptest.C2S, 1000), c.Ack(at(4), pcaptest.S2C, 1001, 65535), c.Fin(at(5), pcaptest.C2S), c.Fin(at(6), pcaptest.S2C), c.Ack(at(7), pcaptest.C2S, 2, 65535)}
	f := pcaptest.New(pcaptest.Options{Format: format, LinkType: pcaptest.LinkEthernet})
	for i, s := range segs {
		fr := pcaptest.Ethernet(s.IP())
		orig := len(fr)
		if i == 3 {
			orig = 20
		}
		f.AddLen(s.T, 0, fr, orig)
	}
	return f.Bytes()
}

// runStdin runs the CLI with in as standard input.
func runStdin(t *testing.T, in []byte, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, bytes.NewReader(in), &out, &errb)
	return out.String(), errb.String(), err
}

// TestStdinNamedStdin: a capture on standard input ("-") is "stdin" in
// every message, row and file field of every verb that spools it — it was
// the spool file (/tmp/tcpviz-stdin-NNN.pcap) in the errors of rtt, seq,
// window, retrans and tput — and --pep reads the same spool as the
// analysis (it read standard input again, found it empty and failed). The
// spool is removed at the end.
func TestStdinNamedStdin(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := t.TempDir()
	garbage := bytes.Repeat([]byte{0x8e, 0x2b, 0x7b, 0x0e}, 100)
	good := faultConn(pcaptest.PcapMicro)
	verbs := [][]string{{"rtt"}, {"seq"}, {"window"}, {"retrans"}, {"tput"}, {"rtt", "--pep"}, {"seq", "--pep"}, {"retrans", "--csv"}, {"rtt", "--json"}}
	for _, v := range verbs {
		args := append(append([]string{}, v...), "-")
		_, _, err := runStdin(t, garbage, args...)
		if exitCode(err) != 2 || err == nil || !strings.HasPrefix(err.Error(), "stdin: not a pcap or pcapng capture") {
			t.Errorf("tcpviz %s < garbage: exit %d, %v; want 2, stdin: not a pcap…", strings.Join(args, " "), exitCode(err), err)
		}
		stdout, errOut, err := runStdin(t, good, args...)
		if err != nil {
			t.Errorf("tcpviz %s < capture: %v", strings.Join(args, " "), err)
		}
		if all := stdout + errOut; strings.Contains(all, "tcpviz-stdin") || !strings.Contains(errOut, "warning: stdin: frame 4: its record gives") {
			t.Errorf("tcpviz %s < capture: output names the spool, or no warning on stdin:\n%s", strings.Join(args, " "), all)
		}
	}
	// Files written: CSV and JSON file fields, the report.
	for _, args := range [][]string{
		{"seq", "-", "-o", filepath.Join(out, "seq.json")},
		{"report", "-", "-o", filepath.Join(out, "report.html")},
		{"compare", "a=-", "--csv"},
		{"compare", "a=-", "--pep"},
	} {
		stdout, errOut, err := runStdin(t, good, args...)
		if err != nil {
			t.Errorf("tcpviz %s: %v", strings.Join(args, " "), err)
		}
		if all := stdout + errOut; strings.Contains(all, "tcpviz-stdin") || strings.Contains(all, ",-,") || strings.Contains(all, "a: - conn") {
			t.Errorf("tcpviz %s: output names the spool or '-':\n%s", strings.Join(args, " "), all)
		}
	}
	for _, f := range []string{"seq.json", "report.html"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("tcpviz-stdin")) {
			t.Errorf("%s names the spool file", f)
		}
		if f == "seq.json" && !bytes.Contains(b, []byte(`"file": "stdin"`)) {
			t.Errorf("seq.json: no \"file\": \"stdin\"")
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "tcpviz-stdin-*")); len(left) > 0 {
		t.Errorf("spool files left: %v", left)
	}
}
