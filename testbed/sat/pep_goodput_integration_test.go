package sat

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestPEPEndToEndGoodputMatchesIperf3 runs the satellite testbed with the
// PEP and a 20 KB window (5 s of iperf3, about 15 s of wall time) and checks
// that 'compare' on the client+server pair reports an end-to-end goodput
// within 5 % of iperf3's received rate, while the client capture alone is
// recognised as acknowledged by the PEP and gives no end-to-end number.
func TestPEPEndToEndGoodputMatchesIperf3(t *testing.T) {
	skipUnlessTestbed(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 55*time.Second)
	defer cancel()
	cfg := DefaultConfig()
	cfg.Duration = 5 * time.Second
	cfg.Helper = []string{exe}
	cfg.HelperEnv = []string{helperEnv + "=1"}
	cfg.PEP, cfg.WindowBytes = true, 20480
	cfg.Name = "pep-on_window-20KB"
	cfg.OutDir = filepath.Join(t.TempDir(), cfg.Name)
	res, err := Run(ctx, cfg, t.Logf)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	opts := tcpanalysis.Options{Detail: true, Keep: func(int) bool { return true }}
	cl, err := tcpanalysis.AnalyzeFile(res.ClientPcap, opts)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := tcpanalysis.AnalyzeFile(res.ServerPcap, opts)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := compare.ParseSpec("pep=" + res.ClientPcap + "+" + res.ServerPcap)
	run, err := compare.NewPairRun(spec, cl, sv, "bulk")
	if err != nil {
		t.Fatal(err)
	}
	got, want := run.EndToEndKbps(), res.RecvBps/1000
	t.Logf("end-to-end goodput %.1f kbit/s, iperf3 received %.1f kbit/s; held in PEP max %d B; legs %v + %v",
		got, want, run.Split.MaxHeldBytes, run.Split.ClientPEPRTT, run.Split.PEPServerRTT)
	if !run.ProxyAcked() || math.IsNaN(got) || math.Abs(got-want) > 0.05*want {
		t.Errorf("end-to-end goodput %.1f kbit/s (proxy %v), iperf3 received %.1f kbit/s: want within 5 %%", got, run.ProxyAcked(), want)
	}
	if run.Split.MaxHeldBytes <= 0 || run.Split.ClientPEPRTT > 100*time.Millisecond || run.Split.PEPServerRTT < 500*time.Millisecond {
		t.Errorf("split: held %d B, client↔PEP %v, PEP↔server %v", run.Split.MaxHeldBytes, run.Split.ClientPEPRTT, run.Split.PEPServerRTT)
	}
	// The client capture alone: the ACKs are the PEP's.
	one, err := compare.NewRun(compare.Spec{Label: "pep", File: res.ClientPcap, Conn: -1}, cl, cl.Conns[run.Result.Conn.Index], run.Dir, "bulk")
	if err != nil {
		t.Fatal(err)
	}
	if !one.ProxyAcked() || !math.IsNaN(one.EndToEndKbps()) {
		t.Errorf("client capture alone: proxy %v, end-to-end %.1f; want true, NaN", one.ProxyAcked(), one.EndToEndKbps())
	}
}
