package sat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// helperEnv makes the test binary act as the namespace helper (see TestMain).
const helperEnv = "TCPVIZ_SAT_TEST_HELPER"

func TestMain(m *testing.M) {
	// Helper mode. Also keyed on the role argument, so that a helper started
	// without the environment variable can never re-run the tests (and the
	// testbed) recursively.
	isRole := len(os.Args) > 1 && (os.Args[1] == "emu" || os.Args[1] == "pep" || os.Args[1] == "offload")
	if os.Getenv(helperEnv) == "1" || isRole {
		if len(os.Args) != 3 {
			fmt.Fprintln(os.Stderr, "helper: want ROLE JSON, got", os.Args[1:])
			os.Exit(2)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := Helper(ctx, os.Args[1], os.Args[2], os.Stdout)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// skipUnlessTestbed skips t with a one-line reason unless this machine can
// run the testbed.
func skipUnlessTestbed(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("testbed needs root")
	}
	if testing.Short() {
		t.Skip("testbed runs in real time; skipped with -short")
	}
	if err := CheckTools(true); err != nil {
		t.Skip("testbed tools missing: ", err)
	}
	probe := fmt.Sprintf("%sprobe-%d", NSPrefix, os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		t.Skipf("ip netns add not allowed: %v: %s", err, out)
	}
	exec.Command("ip", "netns", "del", probe).Run()
}

// handshakeRTTs returns SYN → SYN-ACK times seen in a capture, in
// connection order, parsed independently of Summarize.
func handshakeRTTs(t *testing.T, path string) []time.Duration {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ port layers.TCPPort }
	syn := map[layers.TCPPort]time.Time{}
	var order []layers.TCPPort
	rtt := map[layers.TCPPort]time.Duration{}
	for {
		data, ci, err := r.ReadPacketData()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.NoCopy)
		tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if !ok || !tcp.SYN {
			continue
		}
		switch {
		case !tcp.ACK:
			if _, seen := syn[tcp.SrcPort]; !seen {
				syn[tcp.SrcPort] = ci.Timestamp
				order = append(order, tcp.SrcPort)
			}
		default:
			if s, ok := syn[tcp.DstPort]; ok {
				if _, done := rtt[tcp.DstPort]; !done {
					rtt[tcp.DstPort] = ci.Timestamp.Sub(s)
				}
			}
		}
	}
	var out []time.Duration
	for _, p := range order {
		if d, ok := rtt[p]; ok {
			out = append(out, d)
		}
	}
	return out
}

func TestSatRunPEPvsNoPEP(t *testing.T) {
	skipUnlessTestbed(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 55*time.Second)
	defer cancel()
	base := DefaultConfig()
	base.Duration = 3 * time.Second
	base.Helper = []string{exe}
	base.HelperEnv = []string{helperEnv + "=1"}
	dir := t.TempDir()
	tests := []struct {
		pep        bool
		minRTT     time.Duration
		maxRTT     time.Duration
		maxBulkRTT time.Duration
	}{
		{false, 590 * time.Millisecond, 700 * time.Millisecond, 700 * time.Millisecond},
		{true, 0, 50 * time.Millisecond, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		name := "pep-" + onOff(tt.pep)
		t.Run(name, func(t *testing.T) {
			cfg := base
			cfg.PEP, cfg.Name, cfg.OutDir = tt.pep, name, filepath.Join(dir, name)
			res, err := Run(ctx, cfg, t.Logf)
			if left, lerr := ListNamespaces(context.Background(), res.Namespaces); lerr != nil || (res.Namespaces != "" && len(left) > 0) {
				t.Errorf("namespaces left behind: %v %v", left, lerr)
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			rtts := handshakeRTTs(t, res.ClientPcap)
			if len(rtts) < 2 {
				t.Fatalf("client capture has %d complete handshakes, want ≥ 2 (control + data)", len(rtts))
			}
			// The delay is emulated in user space: on a busy machine a
			// handshake can wait for the emulator to be scheduled (the
			// first one once took 707 ms for a 600 ms path). Every
			// handshake has at least the path's delay; the fastest one
			// is within the window, and none is more than 200 ms late.
			fastest := rtts[0]
			for i, r := range rtts {
				fastest = min(fastest, r)
				if r < tt.minRTT || r > tt.maxRTT+200*time.Millisecond {
					t.Errorf("handshake %d: SYN→SYN-ACK at the client = %v, want in [%v, %v + 200 ms]", i, r, tt.minRTT, tt.maxRTT)
				}
			}
			if fastest > tt.maxRTT {
				t.Errorf("fastest handshake %v, want ≤ %v", fastest, tt.maxRTT)
			}
			t.Logf("%s: handshake RTTs %v, summary %+v", name, rtts, res.Client)
			if res.Client.ACKRTTMedian <= 0 || res.Client.ACKRTTMedian > tt.maxBulkRTT+100*time.Millisecond {
				t.Errorf("ACK RTT median = %v", res.Client.ACKRTTMedian)
			}
			for _, p := range []string{res.ClientPcap, res.ServerPcap, filepath.Join(res.Dir, "client.json"), filepath.Join(res.Dir, "server.json")} {
				if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
					t.Errorf("output %s missing or empty: %v", p, err)
				}
			}
		})
	}
}
