package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/export"
)

// syncBuffer is a bytes.Buffer safe for a process writing while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// netnsPair creates namespaces c and s joined by a veth pair (tvc in c with
// 10.99.0.1/24, tvs in s with 10.99.0.2/24), IPv6 off so that only the
// test's traffic crosses it, and deletes them at cleanup.
func netnsPair(t *testing.T) (c, s string) {
	t.Helper()
	id := os.Getpid() % 100000
	c, s = fmt.Sprintf("tvlc%d", id), fmt.Sprintf("tvls%d", id)
	sh := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	sh("ip", "netns", "add", c)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", c).Run() })
	sh("ip", "netns", "add", s)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", s).Run() })
	sh("ip", "link", "add", "tvc", "netns", c, "type", "veth", "peer", "name", "tvs", "netns", s)
	for _, x := range [][3]string{{c, "tvc", "10.99.0.1/24"}, {s, "tvs", "10.99.0.2/24"}} {
		sh("ip", "netns", "exec", x[0], "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
		sh("ip", "netns", "exec", x[0], "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
		sh("ip", "-n", x[0], "addr", "add", x[2], "dev", x[1])
		sh("ip", "-n", x[0], "link", "set", x[1], "up")
		sh("ip", "-n", x[0], "link", "set", "lo", "up")
	}
	return c, s
}

// csvRows returns the data rows of CSV text, dropping the first cut
// columns, sorted.
// replacedRows applies the live retrans stream's replacements to its
// rows (conn,dir,t_s,conn_t_s,frame,class,…): a retransmission printed
// again as spurious, when later evidence showed it, replaces the row
// printed as it was classified.
func replacedRows(rows []string) []string {
	last := map[string]string{}
	var order []string
	for _, r := range rows {
		f := strings.Split(r, ",")
		if len(f) < 6 {
			order = append(order, r)
			continue
		}
		k := f[0] + "/" + f[4]
		if _, ok := last[k]; !ok || f[5] == "spurious" {
			if !ok {
				order = append(order, k)
			}
			last[k] = r
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		if r, ok := last[k]; ok {
			out = append(out, r)
		} else {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// maskPEP blanks the PEP verdict columns (acks_from_pep_*, pep_possible_*)
// of flows CSV rows without their file column, which live flows do not
// judge.
func maskPEP(rows []string) []string {
	for i, r := range rows {
		f := strings.Split(r, ",")
		for k, c := range export.FlowColumns[1:] {
			if k < len(f) && (strings.HasPrefix(c, "acks_from_pep_") || strings.HasPrefix(c, "pep_possible_")) {
				f[k] = "-"
			}
		}
		rows[i] = strings.Join(f, ",")
	}
	return rows
}

func csvRows(text string, cut int) []string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) == 0 {
		return nil
	}
	rows := lines[1:]
	for i, l := range rows {
		for k := 0; k < cut; k++ {
			_, l, _ = strings.Cut(l, ",")
		}
		rows[i] = l
	}
	sort.Strings(rows)
	return rows
}

// TestLiveNetns runs iperf3 through a veth pair between two network
// namespaces while 'tcpviz rtt -i' and 'tcpviz flows -i' watch the client
// end and tcpdump captures it, stops them with Ctrl-C (SIGINT), and checks
// that the live numbers equal those of the same traffic analysed from
// files afterwards: the -w files and tcpdump's capture.
func TestLiveNetns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces")
	}
	for _, tool := range []string{"ip", "iperf3", "tcpdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "tcpviz")
	// The binary gets the test's backend: go test -tags pcap tests libpcap.
	if out, err := exec.Command("go", "build", "-tags", testBuildTags, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cns, sns := netnsPair(t)
	// A 15 Mbit/s token bucket with a 20 kB queue under a 20 Mbit/s
	// iperf3: drops, so that retrans -i has events to report.
	if out, err := exec.Command("ip", "netns", "exec", cns, "tc", "qdisc", "add", "dev", "tvc", "root", "tbf", "rate", "15mbit", "burst", "15kb", "limit", "20kb").CombinedOutput(); err != nil {
		t.Logf("no tbf qdisc (%v: %s): retrans -i will likely see no events", err, out)
	}

	type proc struct {
		name     string
		cmd      *exec.Cmd
		out, err *syncBuffer
		ready    string
	}
	start := func(name, ready string, args ...string) *proc {
		p := &proc{name: name, out: &syncBuffer{}, err: &syncBuffer{}, ready: ready}
		p.cmd = exec.Command("ip", append([]string{"netns", "exec"}, args...)...)
		p.cmd.Stdout, p.cmd.Stderr = p.out, p.err
		if err := p.cmd.Start(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
		return p
	}
	srv := start("iperf3 -s", "", sns, "iperf3", "-s", "-1", "-p", "5201", "--forceflush")
	td := filepath.Join(dir, "tcpdump.pcap")
	rttW, flowsW, retrW, tputW := filepath.Join(dir, "rtt.pcapng"), filepath.Join(dir, "flows.pcapng"), filepath.Join(dir, "retrans.pcapng"), filepath.Join(dir, "tput.pcapng")
	watchers := []*proc{
		start("tcpdump", "listening on", cns, "tcpdump", "-i", "tvc", "-n", "-U", "--immediate-mode", "-B", "32768", "--time-stamp-precision=nano", "-w", td),
		start("tcpviz rtt -i", "capturing on", cns, bin, "rtt", "-i", "tvc", "--csv", "-w", rttW),
		start("tcpviz flows -i", "capturing on", cns, bin, "flows", "-i", "tvc", "--csv", "-w", flowsW, "--every", "500ms"),
		start("tcpviz retrans -i", "capturing on", cns, bin, "retrans", "-i", "tvc", "--csv", "-w", retrW),
		start("tcpviz tput -i", "capturing on", cns, bin, "tput", "-i", "tvc", "--csv", "--filter", "tcp port 5201", "--interval", "1s", "-w", tputW),
	}
	deadline := time.Now().Add(20 * time.Second)
	// The server too: under load (packages tested in parallel) the
	// client could connect before it listened ("Connection refused").
	for !strings.Contains(srv.out.String(), "Server listening") {
		if time.Now().After(deadline) {
			t.Fatalf("iperf3 -s did not start: %s%s", srv.out.String(), srv.err.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, w := range watchers {
		for !strings.Contains(w.err.String(), w.ready) {
			if time.Now().After(deadline) {
				t.Fatalf("%s did not start: %s", w.name, w.err.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// 3 s at 20 Mbit/s offered, 15 Mbit/s through the token bucket: about
	// 5.6 MB, a few thousand segments.
	if out, err := exec.CommandContext(ctx, "ip", "netns", "exec", cns, "iperf3", "-c", "10.99.0.2", "-p", "5201", "-t", "3", "-b", "20M").CombinedOutput(); err != nil {
		t.Fatalf("iperf3 -c: %v\n%s", err, out)
	}
	time.Sleep(500 * time.Millisecond)
	for _, w := range watchers {
		w.cmd.Process.Signal(syscall.SIGINT) // Ctrl-C: the final summary
	}
	for _, w := range watchers {
		done := make(chan error, 1)
		go func() { done <- w.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v\n%s", w.name, err, w.err.String())
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("%s did not stop on SIGINT", w.name)
		}
	}
	// Every watcher must have seen every frame for the counts to agree;
	// on a loaded machine a ring can overflow, and the kernel says so.
	drops := false
	for _, w := range watchers {
		msg := w.err.String()
		if (w.name == "tcpdump" && !strings.Contains(msg, "\n0 packets dropped by kernel")) ||
			(w.name != "tcpdump" && !strings.Contains(msg, " 0 dropped by the kernel")) {
			t.Logf("%s lost frames (machine busy?): %s", w.name, msg)
			drops = true
		}
	}
	tv := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("tcpviz %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	// Live mode lists every connection as it moves (the largest is not
	// known before the end); a file verb reads one connection (--conn N):
	// tvAll joins the file verb's output for every connection, one header.
	tvAll := func(n int, args ...string) string {
		t.Helper()
		var b strings.Builder
		for i := 0; i < n; i++ {
			out := tv(append(args, "--conn", strconv.Itoa(i))...)
			if i > 0 {
				_, out, _ = strings.Cut(out, "\n")
			}
			b.WriteString(out)
		}
		return b.String()
	}

	// flows: the live table (CSV rows, file column dropped) equals the
	// analysis of its own -w file exactly, and that of tcpdump's capture in
	// every count; times may differ by microseconds there, as each packet
	// socket stamps its own copy of a packet.
	// The PEP columns are the file's alone: the live table does not judge
	// PEPs (it says so, and how to get them: -w and 'tcpviz flows FILE').
	liveFlows := maskPEP(csvRows(watchers[2].out.String(), 1))
	if len(liveFlows) != 2 {
		t.Fatalf("flows -i: %d connections, want 2 (iperf3 control and data):\n%s", len(liveFlows), watchers[2].out.String())
	}
	if !strings.Contains(watchers[2].err.String(), "note: live flows do not judge whether a split-TCP PEP acknowledged the data") {
		t.Errorf("flows -i: no note on PEP verdicts:\n%s", watchers[2].err.String())
	}
	if got, want := strings.Join(liveFlows, "\n"), strings.Join(maskPEP(csvRows(tv("flows", "--csv", flowsW), 1)), "\n"); got != want {
		t.Errorf("flows -i rows differ from 'flows %s':\n%s\nwant:\n%s", filepath.Base(flowsW), got, want)
	}
	if !drops {
		sameRows(t, "flows -i vs flows tcpdump.pcap", export.FlowColumns[1:], liveFlows, maskPEP(csvRows(tv("flows", "--csv", td), 1)))
	}
	// The data connection carried 3 s × 15 Mbit/s.
	var maxBytes int64
	for _, r := range liveFlows {
		f := strings.Split(r, ",")
		b, _ := strconv.ParseInt(f[11], 10, 64) // bytes_ab (file column dropped)
		maxBytes = max(maxBytes, b)
	}
	if maxBytes < 3_000_000 || maxBytes > 10_000_000 {
		t.Errorf("flows -i: data connection carried %d bytes, want about 5.6 MB (3 s at 15 Mbit/s)", maxBytes)
	}

	// rtt: the samples printed as they came equal those of 'rtt --csv' on
	// the -w file exactly, and on tcpdump's capture up to the stamps.
	rttCols := []string{"conn", "dir", "method", "t_s", "conn_t_s", "rtt_ms", "frame"}
	liveRTT := rttRows(watchers[1].out.String())
	if len(liveRTT) < 100 {
		t.Fatalf("rtt -i: %d samples, want hundreds", len(liveRTT))
	}
	if got, want := strings.Join(liveRTT, "\n"), strings.Join(rttRows(tvAll(len(liveFlows), "rtt", "--csv", rttW)), "\n"); got != want {
		t.Errorf("rtt -i samples differ from 'rtt --csv %s' (%d live rows)", filepath.Base(rttW), len(liveRTT))
	}
	if !drops {
		sameRows(t, "rtt -i vs rtt --csv tcpdump.pcap", rttCols, liveRTT, rttRows(tvAll(len(liveFlows), "rtt", "--csv", td)))
	}
	// The summary printed at Ctrl-C (standard error in CSV mode) is the
	// table of 'tcpviz rtt FILE' on the -w file.
	summary := watchers[1].err.String()
	if i := strings.Index(summary, "RTT summary of the open connections:\n"); i >= 0 {
		summary = summary[i+len("RTT summary of the open connections:\n"):]
		summary = summary[:strings.Index(summary, "tcpviz rtt:")]
	}
	fields := func(s string) string { // the same cells, whatever the padding
		var l []string
		for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
			l = append(l, strings.Join(strings.Fields(line), " "))
		}
		return strings.Join(l, "\n")
	}
	if got, want := fields(summary), fields(tvAll(len(liveFlows), "rtt", rttW)); got != want {
		t.Errorf("rtt -i summary:\n%s\nwant the table of 'rtt %s':\n%s", got, filepath.Base(rttW), want)
	}
	t.Logf("live: %d connections, %d RTT samples, data connection %d bytes", len(liveFlows), len(liveRTT), maxBytes)

	// retrans: the events printed as they happened are those of
	// 'retrans --csv' on the -w file.
	liveEv := replacedRows(csvRows(watchers[3].out.String(), 0))
	if got, want := strings.Join(liveEv, "\n"), strings.Join(csvRows(tvAll(len(liveFlows), "retrans", "--csv", retrW), 0), "\n"); got != want {
		t.Errorf("retrans -i events differ from 'retrans --csv %s':\n%s\nwant:\n%s", filepath.Base(retrW), got, want)
	}
	t.Logf("retrans -i: %d events; tput -i: %d interval rows", len(liveEv), len(csvRows(watchers[4].out.String(), 0)))

	// tput: the intervals of each connection direction add up to its
	// bytes, and the last cumulative acknowledged count is its acked bytes
	// (flows columns bytes_ab and acked_ab).
	type dirSum struct {
		bytes float64
		acked string
	}
	sums := map[string]*dirSum{}
	for _, r := range csvRows(watchers[4].out.String(), 0) {
		f := strings.Split(r, ",") // conn,dir,t_s,conn_t_s,interval_s,throughput_kbps,goodput_kbps,cum_acked_bytes
		kbps, _ := strconv.ParseFloat(f[5], 64)
		iv, _ := strconv.ParseFloat(f[4], 64)
		k := f[0] + f[1]
		if sums[k] == nil {
			sums[k] = &dirSum{}
		}
		sums[k].bytes += kbps * 1000 / 8 * iv
	}
	// Rows sorted by t_s as strings sort the same way here (t_s < 10 s).
	for _, r := range csvRows(watchers[4].out.String(), 0) {
		f := strings.Split(r, ",")
		sums[f[0]+f[1]].acked = f[7]
	}
	// Each watcher has its own packet socket, so on a busy machine each
	// may miss other frames: compare with the flows of tput's own -w file.
	for _, r := range csvRows(tv("flows", "--csv", tputW), 1) {
		f := strings.Split(r, ",") // flows columns without file
		ab := sums[f[0]+"ab"]
		if ab == nil {
			t.Errorf("tput -i: no rows for conn %s ab", f[0])
			continue
		}
		b, _ := strconv.ParseFloat(f[11], 64)
		if d := ab.bytes - b; d < -1 || d > 1 {
			t.Errorf("tput -i conn %s ab: intervals add up to %.1f bytes, flows says %s", f[0], ab.bytes, f[11])
		}
		if ab.acked != f[17] {
			t.Errorf("tput -i conn %s ab: last cum_acked_bytes %s, flows acked_ab %s", f[0], ab.acked, f[17])
		}
	}

	// --filter on a file equals tcpdump's pre-filtering, piped.
	for _, expr := range []string{"tcp port 5201", "src host 10.99.0.1", "arp or (tcp and not port 5201)"} {
		pipe := fmt.Sprintf("tcpdump --time-stamp-precision=nano -r %s -w - '%s' 2>/dev/null | %s flows --csv -", td, expr, bin)
		out, err := exec.Command("sh", "-c", pipe).Output()
		if err != nil {
			t.Fatalf("%s: %v", pipe, err)
		}
		// start_s keeps the unfiltered file's origin (dropStart). Standard
		// input is read once: its PEP verdicts rest on the first pass (and
		// a note says so), the file's on a second look (maskPEP).
		want := dropStart(maskPEP(csvRows(string(out), 1)))
		got := dropStart(maskPEP(csvRows(tv("flows", "--csv", "--filter", expr, td), 1)))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("flows --filter %q differs from %s:\n%s\nwant:\n%s", expr, pipe, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// rttRows returns the rows of 'rtt --csv' output ordered by connection,
// frame, method and direction.
func rttRows(text string) []string {
	rows := csvRows(text, 0)
	key := func(r string) string {
		f := strings.Split(r, ",")
		c, _ := strconv.Atoi(f[0])
		fr, _ := strconv.ParseInt(f[5], 10, 64)
		return fmt.Sprintf("%06d %012d %s %s", c, fr, f[2], f[1])
	}
	sort.SliceStable(rows, func(i, j int) bool { return key(rows[i]) < key(rows[j]) })
	return rows
}

// sameRows compares CSV rows column by column: counts exactly, times (_s,
// _ms) within 100 µs and rates (_kbps) within 0.01 %. Two packet sockets
// stamp their copies of one packet separately: 24 µs apart was seen on a
// veth, and an RTT of a few µs changes by as much.
func sameRows(t *testing.T, what string, cols []string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
		return
	}
	// late counts stamps off by more than the tolerance but by less than
	// 50 ms: a socket's copy delivered a scheduler tick or two late on a
	// loaded machine (rtt -i against tcpdump, tests of other packages
	// running beside it: one RTT sample of 1 398 was 2.6 ms apart). Up to
	// 1 % of the rows may have one; more, or one farther, fails.
	late, bad := 0, 0
	for i := range got {
		g, w := strings.Split(got[i], ","), strings.Split(want[i], ",")
		for k := range g {
			if k >= len(w) || k >= len(cols) || g[k] == w[k] {
				continue
			}
			gv, err1 := strconv.ParseFloat(g[k], 64)
			wv, err2 := strconv.ParseFloat(w[k], 64)
			d := gv - wv
			if d < 0 {
				d = -d
			}
			ok := err1 == nil && err2 == nil
			switch {
			case !ok:
			case cols[k] == "frame":
				// Frames are numbered per packet socket: one that saw
				// a frame the other did not (an ARP before it opened)
				// numbers every later frame one off.
				ok = true
			// Each packet socket stamps its own copy of a packet when
			// it is delivered; on a loaded machine the two stamps of
			// one packet were seen 156 µs apart. The exact check is
			// against the watcher's own -w file above.
			case strings.HasSuffix(cols[k], "_ms"):
				ok = d <= 2
			case strings.HasSuffix(cols[k], "_s"):
				ok = d <= 2e-3
			case strings.HasSuffix(cols[k], "_kbps"):
				ok = d <= 1e-4*max(wv, -wv)
			default:
				ok = false
			}
			if !ok && (strings.HasSuffix(cols[k], "_ms") && d < 50 || strings.HasSuffix(cols[k], "_s") && d < 50e-3) && late < max(1, len(got)/100) {
				late++
				t.Logf("%s: row %d column %s = %s, want %s: a late stamp (%d of at most %d)", what, i, cols[k], g[k], w[k], late, max(1, len(got)/100))
				continue
			}
			if !ok && bad < 10 {
				t.Errorf("%s: row %d column %s = %s, want %s", what, i, cols[k], g[k], w[k])
			}
			if !ok {
				bad++
			}
		}
	}
}
