package main

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// filterCapture writes a pcap of link type link holding four short
// connections (three IPv4, one IPv6) between different hosts and ports.
func filterCapture(t *testing.T, link uint32) string {
	t.Helper()
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: link})
	frame := func(ip []byte) []byte {
		switch link {
		case pcaptest.LinkEthernet:
			return pcaptest.Ethernet(ip)
		case pcaptest.LinkLinuxSLL:
			return pcaptest.LinuxSLL(ip)
		case pcaptest.LinkPPP:
			return pcaptest.PPP(ip)
		}
		return pcaptest.Raw(ip)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, ep := range [][2]string{
		{"10.0.0.1:40000", "10.0.1.1:5201"},
		{"10.0.0.1:40001", "10.0.1.2:80"},
		{"10.0.0.2:40002", "10.0.1.1:22"},
		{"[2001:db8::1]:40003", "[2001:db8::2]:5201"},
	} {
		c := pcaptest.NewConn(netip.MustParseAddrPort(ep[0]), netip.MustParseAddrPort(ep[1]), 1000*uint32(i+1), 5000*uint32(i+1))
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		segs := c.Handshake(at, time.Millisecond)
		for k := 0; k < 3; k++ {
			at = at.Add(2 * time.Millisecond)
			segs = append(segs, c.Data(at, pcaptest.C2S, 100*(i+1)), c.Ack(at.Add(time.Millisecond), pcaptest.S2C, c.Next(pcaptest.C2S), 65535))
		}
		at = at.Add(2 * time.Millisecond)
		segs = append(segs, c.Fin(at, pcaptest.C2S), c.Fin(at.Add(time.Millisecond), pcaptest.S2C), c.Ack(at.Add(2*time.Millisecond), pcaptest.C2S, c.Next(pcaptest.S2C), 65535))
		for _, s := range segs {
			f.Add(s.T, 0, frame(s.IP()))
		}
	}
	p := filepath.Join(t.TempDir(), "conns.pcap")
	if err := os.WriteFile(p, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// flowsRows runs 'tcpviz flows --csv' with args and returns its
// data rows without the file column, sorted.
func flowsRows(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(context.Background(), append([]string{"flows", "--csv"}, args...), strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("tcpviz flows --csv %v: %v\n%s", args, err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")[1:]
	for i, l := range lines {
		_, rest, _ := strings.Cut(l, ",")
		lines[i] = rest
	}
	sort.Strings(lines)
	return lines
}

// dropStart removes the start_s column (the sixth, after conn and the
// endpoints) from flowsRows rows: with --filter it counts from the file's
// first frame, in tcpdump's pre-filtered file from the first kept frame.
func dropStart(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		f := strings.Split(r, ",")
		out[i] = strings.Join(append(f[:5:5], f[6:]...), ",")
	}
	return out
}

// flowStarts maps each flowsRows row's endpoints to its start_s.
func flowStarts(rows []string) map[string]string {
	m := map[string]string{}
	for _, r := range rows {
		f := strings.Split(r, ",")
		m[strings.Join(f[1:5], ",")] = f[5]
	}
	return m
}

// TestFilterMatchesTcpdump checks that --filter keeps the same connections,
// with the same packets and bytes, as pre-filtering the file with tcpdump:
// tcpviz flows --filter EXPR FILE == tcpdump -r FILE -w PRE EXPR; tcpviz flows PRE
// but for start_s, which keeps the unfiltered file's time origin (B14;
// the pipe form is run by TestLiveNetns on its capture).
func TestFilterMatchesTcpdump(t *testing.T) {
	if _, err := exec.LookPath("tcpdump"); err != nil {
		t.Skip("tcpdump not installed")
	}
	exprs := []string{
		"tcp port 5201",
		"host 10.0.1.1",
		"src host 10.0.0.2",
		"dst port 80 or dst port 22",
		"net 10.0.0.0/24 and not port 22",
		"ip6",
		"ip and tcp",
		"(port 80 or port 22) and host 10.0.0.2",
		"dst net 10.0.1.0/24",
		"host 2001:db8::2",
		"udp",
		"port 80 or 22",
		"host 10.0.1.2 or 10.0.0.2 and port 22", // and/or: equal precedence, left to right
		"not tcp port 5201 and ip",
		"src and dst net 10.0.0.0/16",
		"tcp src port 40001 || ! ip",
		"ip6 host 2001:db8::1 && tcp",
	}
	links := map[string]uint32{"ethernet": pcaptest.LinkEthernet, "raw": pcaptest.LinkRaw, "linux-sll": pcaptest.LinkLinuxSLL}
	for name, link := range links {
		file := filterCapture(t, link)
		all := flowsRows(t, file)
		if len(all) != 4 {
			t.Fatalf("%s: %d connections without a filter, want 4", name, len(all))
		}
		for _, expr := range exprs {
			t.Run(name+"/"+expr, func(t *testing.T) {
				pre := filepath.Join(t.TempDir(), "pre.pcap")
				if out, err := exec.Command("tcpdump", "-r", file, "-w", pre, expr).CombinedOutput(); err != nil {
					t.Fatalf("tcpdump -r %s -w %s %q: %v\n%s", file, pre, expr, err, out)
				}
				want := flowsRows(t, pre)
				gotRows := flowsRows(t, "--filter", expr, file)
				got := dropStart(gotRows)
				if strings.Join(got, "\n") != strings.Join(dropStart(want), "\n") {
					t.Errorf("flows --filter %q:\n%s\nwant (tcpdump pre-filtered):\n%s", expr, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				// start_s counts from the file's first frame, filtered
				// or not: a connection starts when it does without the
				// filter (tcpdump's pre-filtered file starts later).
				starts := flowStarts(all)
				for k, st := range flowStarts(gotRows) {
					if starts[k] != st {
						t.Errorf("flows --filter %q: %s start_s %s, without the filter %s", expr, k, st, starts[k])
					}
				}
			})
		}
	}
}

// TestFilterErrors checks that a filter the compiler cannot take is a clear
// usage error (exit status 1) found before any capture is opened, in every
// verb that takes --filter, never a silently wrong selection.
func TestFilterErrors(t *testing.T) {
	file := filterCapture(t, pcaptest.LinkEthernet)
	never := filepath.Join(t.TempDir(), "never-read.pcap")
	for _, expr := range []string{"port", "host", "host 10.0.0.1 and (tcp", "frobnicate 3", "tcp[13] & 2 != 0"} {
		for _, verb := range []string{"flows", "rtt", "retrans", "tput"} {
			_, _, err := runCLI(t, verb, "--filter", expr, never)
			if exitCode(err) != 1 || !strings.Contains(err.Error(), "--filter") || strings.Contains(err.Error(), "never-read") {
				t.Errorf("%s --filter %q: exit %d, err = %v, want a usage error (exit 1) before reading", verb, expr, exitCode(err), err)
			}
		}
	}
	if _, _, err := runCLI(t, "flows", "-w", "x.pcapng", file); err == nil || !strings.Contains(err.Error(), "needs -i") {
		t.Errorf("flows -w without -i: err = %v, want 'needs -i'", err)
	}
	if _, _, err := runCLI(t, "rtt", "-i", "lo", file); err == nil || !strings.Contains(err.Error(), "give no FILE") {
		t.Errorf("rtt -i lo FILE: err = %v, want 'give no FILE'", err)
	}
}
