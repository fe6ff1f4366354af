package manet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

func TestScenarioArgs(t *testing.T) {
	// The command line of shared/ns3/README.md.
	want := strings.Fields(`--protocol=aodv --transport=tcp --run=1 --nNodes=20 --areaX=1000 --areaY=300
		--time=100 --speed=20 --pause=30 --flows=4 --pcap=1 --prefix=tcp-aodv-r1`)
	if got := DefaultScenario().Args(Run{"aodv", 1}); !slices.Equal(got, want) {
		t.Errorf("DefaultScenario().Args(aodv, 1) =\n %q\nwant\n %q", got, want)
	}

	s := Scenario{Transport: "udp", Nodes: 8, AreaX: 300, AreaY: 250.5, Time: 15500 * time.Millisecond,
		Speed: 2.5, Pause: 0, Flows: 2, Extra: []string{"--ns3::TcpSocket::ConnCount=20"}}
	want = []string{"--protocol=olsr", "--transport=udp", "--run=12", "--nNodes=8", "--areaX=300",
		"--areaY=250.5", "--time=15.5", "--speed=2.5", "--pause=0", "--flows=2", "--pcap=0",
		"--prefix=udp-olsr-r12", "--ns3::TcpSocket::ConnCount=20"}
	if got := s.Args(Run{"olsr", 12}); !slices.Equal(got, want) {
		t.Errorf("Args(olsr, 12) =\n %q\nwant\n %q", got, want)
	}
}

func TestScenarioValidate(t *testing.T) {
	ok := DefaultScenario()
	if err := ok.Validate(); err != nil {
		t.Fatalf("DefaultScenario().Validate() = %v, want nil", err)
	}
	for name, mod := range map[string]func(*Scenario){
		"transport": func(s *Scenario) { s.Transport = "quic" },
		"nodes":     func(s *Scenario) { s.Nodes = 1 },
		"flows":     func(s *Scenario) { s.Flows = 0 },
		"area":      func(s *Scenario) { s.AreaY = 0 },
		"time":      func(s *Scenario) { s.Time = 0 },
		"speed":     func(s *Scenario) { s.Speed = -1 },
		"pause":     func(s *Scenario) { s.Pause = -time.Second },
	} {
		s := DefaultScenario()
		mod(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("Validate() with bad %s = nil, want error", name)
		}
	}
}

func TestCampaignRunsAndCommand(t *testing.T) {
	c := &Campaign{Scenario: DefaultScenario(), Protocols: []string{"aodv", "olsr"}, Seeds: []int{1, 2}, Binary: "/opt/bin/manet-tcp"}
	want := []Run{{"aodv", 1}, {"olsr", 1}, {"aodv", 2}, {"olsr", 2}}
	if got := c.Runs(); !slices.Equal(got, want) {
		t.Errorf("Runs() = %v, want %v", got, want)
	}
	cmd := c.Command(context.Background(), Run{"olsr", 2}, "/tmp/work")
	if cmd.Path != "/opt/bin/manet-tcp" || cmd.Dir != "/tmp/work" {
		t.Errorf("Command: Path, Dir = %q, %q; want /opt/bin/manet-tcp, /tmp/work", cmd.Path, cmd.Dir)
	}
	if got, want := cmd.Args[1:], append(c.Scenario.Args(Run{"olsr", 2}), "--campaignKey="+c.RunKey(Run{"olsr", 2})); !slices.Equal(got, want) {
		t.Errorf("Command args = %q, want %q", got, want)
	}
}

func TestCompileArgs(t *testing.T) {
	ma := multiarch()
	tc := Toolchain{CXX: "/usr/bin/g++", IncludeDir: "/usr/include", LibDir: "/usr/lib/" + ma, Libs: []string{"ns3-core", "ns3-wifi"}}
	want := []string{"-O2", "-std=c++17", "-w", "-o", "out", "src.cc", "-L/usr/lib/" + ma, "-lns3-core", "-lns3-wifi"}
	if got := tc.CompileArgs("src.cc", "out"); !slices.Equal(got, want) {
		t.Errorf("CompileArgs (Debian) = %q, want %q", got, want)
	}
	tc = Toolchain{CXX: "g++", IncludeDir: "/opt/ns3/include/ns3.37", LibDir: "/opt/ns3/lib", Libs: []string{"ns3.37-core-default"}}
	want = []string{"-O2", "-std=c++17", "-w", "-I/opt/ns3/include/ns3.37", "-o", "out", "src.cc",
		"-L/opt/ns3/lib", "-Wl,-rpath,/opt/ns3/lib", "-lns3.37-core-default"}
	if got := tc.CompileArgs("src.cc", "out"); !slices.Equal(got, want) {
		t.Errorf("CompileArgs (own install) = %q, want %q", got, want)
	}
}

func TestNs3Libs(t *testing.T) {
	for _, scheme := range []struct{ pre, suf string }{{"ns3-", ""}, {"ns3.37-", "-default"}} {
		dir := t.TempDir()
		for _, m := range ns3Modules {
			touch(t, filepath.Join(dir, "lib"+scheme.pre+m+scheme.suf+".so"))
		}
		libs, ok := ns3Libs(dir, nil)
		if !ok || len(libs) != len(ns3Modules) || libs[0] != scheme.pre+"core"+scheme.suf {
			t.Errorf("ns3Libs(%s...%s) = %q, %v; want all %d modules", scheme.pre, scheme.suf, libs, ok, len(ns3Modules))
		}
		os.Remove(filepath.Join(dir, "lib"+scheme.pre+"olsr"+scheme.suf+".so"))
		if libs, ok := ns3Libs(dir, nil); ok {
			t.Errorf("ns3Libs without olsr = %q, true; want false", libs)
		}
	}
}

func TestKey(t *testing.T) {
	tc := Toolchain{CXX: "/nonexistent/g++", IncludeDir: "/usr/include", LibDir: "/nonexistent", Libs: []string{"ns3-core"}}
	a, b := tc.Key([]byte("int main(){}")), tc.Key([]byte("int main(){return 0;}"))
	if a == b || len(a) != 16 {
		t.Errorf("Key: %q for both sources or wrong length; want two different 16-hex keys", a)
	}
	if c := tc.Key([]byte("int main(){}")); c != a {
		t.Errorf("Key not stable: %q then %q", a, c)
	}
	tc.Libs = []string{"ns3.37-core-default"}
	if c := tc.Key([]byte("int main(){}")); c == a {
		t.Errorf("Key ignores the link flags")
	}
}

func TestParseConfig(t *testing.T) {
	in := "protocol=aodv\nflows=2\nflow0=1(10.1.0.2:49152)->4(10.1.0.5:9000) start=4.2\nflow1=7(10.1.0.8:49153)->5(10.1.0.6:9001) start=4.1\n" +
		"pcap_file=tcp-aodv-r1-1-0.pcap\npcap_file=tcp-aodv-r1-4-0.pcap\nmobility_fingerprint=40894.823216\n"
	c, err := parseConfig(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if c.Fingerprint() != "40894.823216" || len(c.Flows) != 2 || c.Values["flows"] != "2" ||
		!slices.Equal(c.PcapFiles, []string{"tcp-aodv-r1-1-0.pcap", "tcp-aodv-r1-4-0.pcap"}) {
		t.Errorf("parseConfig = %+v", c)
	}
}

// fakeScenario is a shell script standing in for the ns-3 binary: it writes
// a pcap, a config and a ground truth under --prefix, fails for dsdv, and
// sleeps for olsr at seed 9.
const fakeScenario = `#!/bin/sh
for a in "$@"; do
  case "$a" in
    --prefix=*) prefix="${a#--prefix=}" ;;
    --protocol=*) proto="${a#--protocol=}" ;;
    --run=*) run="${a#--run=}" ;;
    --campaignKey=*) key="${a#--campaignKey=}" ;;
  esac
done
[ -n "$FAKE_LOG" ] && echo "$prefix" >> "$FAKE_LOG"
if [ "$proto" = dsdv ]; then echo "dsdv exploded" >&2; exit 7; fi
if [ "$proto" = olsr ] && [ "$run" = 9 ]; then exec sleep 30; fi
printf 'pcap-bytes-%s' "$prefix" > "$prefix-3-0.pcap"
printf 'mobility_fingerprint=42\ncampaign_key=%s\n' "$key" > "$prefix-config.txt"
printf 'run,protocol,transport,flow_id,src_node,dst_node,start_s,sink_rx_bytes,goodput_kbps,tcp_retx_segs\n%s,%s,tcp,0,3,5,10.5,1000,0.1,2\n' "$run" "$proto" > "$prefix-groundtruth.csv"
echo "flow 0 3->5 rx=1000"
`

func writeFake(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fake scenario is a shell script")
	}
	p := filepath.Join(t.TempDir(), "fake-manet")
	if err := os.WriteFile(p, []byte(fakeScenario), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCampaignExecuteFake(t *testing.T) {
	out := t.TempDir()
	// A stale file of an earlier run with the same prefix must go.
	touch(t, filepath.Join(out, "tcp-aodv-r1-9-0.pcap"))
	c := &Campaign{
		Scenario:  DefaultScenario(),
		Protocols: []string{"aodv", "olsr", "dsdv"},
		Seeds:     []int{1, 2},
		OutDir:    out,
		Binary:    writeFake(t),
		Jobs:      3,
		Gzip:      true,
	}
	res, err := c.Execute(context.Background())
	var ce *CampaignError
	if !errors.As(err, &ce) || len(ce.Failed) != 2 || ce.Total != 6 {
		t.Fatalf("Execute error = %v, want a CampaignError with 2 of 6 failed", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "tcp-dsdv-r1") || !strings.Contains(msg, "dsdv exploded") {
		t.Errorf("error %q does not name the failed run and its stderr", msg)
	}
	if len(res.Runs) != 6 {
		t.Fatalf("len(Runs) = %d, want 6", len(res.Runs))
	}
	for _, rr := range res.Runs {
		if (rr.Err != nil) != (rr.Run.Protocol == "dsdv") {
			t.Errorf("%s: Err = %v", rr.Prefix, rr.Err)
		}
		if rr.Err == nil && (len(rr.Flows) != 1 || rr.Flows[0].SinkRxBytes != 1000 || rr.PcapGzBytes == 0) {
			t.Errorf("%s: Flows = %+v, PcapGzBytes = %d", rr.Prefix, rr.Flows, rr.PcapGzBytes)
		}
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"groundtruth-all.csv", "runtimes.csv"}
	for _, p := range []string{"tcp-aodv-r1", "tcp-aodv-r2", "tcp-olsr-r1", "tcp-olsr-r2"} {
		want = append(want, p+"-3-0.pcap.gz", p+"-config.txt", p+"-groundtruth.csv", p+"-stdout.txt")
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("files in out =\n %q\nwant\n %q", names, want)
	}
	if got := string(sharedtest.GunzipBytes(t, filepath.Join(out, "tcp-olsr-r2-3-0.pcap.gz"))); got != "pcap-bytes-tcp-olsr-r2" {
		t.Errorf("gunzipped pcap = %q", got)
	}
	all, err := ReadGroundTruth(filepath.Join(out, GroundTruthAllName))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range all {
		order = append(order, f.Protocol+string(rune('0'+f.Run)))
	}
	if want := []string{"aodv1", "aodv2", "olsr1", "olsr2"}; !slices.Equal(order, want) {
		t.Errorf("groundtruth-all rows = %v, want %v", order, want)
	}
	rt, _ := os.ReadFile(filepath.Join(out, RuntimesName))
	if lines := strings.Split(strings.TrimSpace(string(rt)), "\n"); len(lines) != 5 || lines[0] != runtimesHeader {
		t.Errorf("runtimes.csv =\n%s", rt)
	}
}

func TestCampaignCancel(t *testing.T) {
	out := t.TempDir()
	c := &Campaign{Scenario: DefaultScenario(), Protocols: []string{"olsr"}, Seeds: []int{9}, OutDir: out, Binary: writeFake(t), Jobs: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Execute(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Execute after cancel = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Execute took %v after cancel; simulation not killed", d)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "tcp-olsr-r9*")); len(m) != 0 {
		t.Errorf("cancelled run left files: %v", m)
	}
}

func touch(t *testing.T, p string) {
	t.Helper()
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFindToolchainMissingNS3(t *testing.T) {
	_, err := FindToolchain(BuildOptions{IncludeDir: t.TempDir()})
	if !errors.Is(err, ErrNoNS3) && !errors.Is(err, ErrNoCompiler) {
		t.Errorf("FindToolchain(empty include dir) = %v, want ErrNoNS3 or ErrNoCompiler", err)
	}
	if err != nil && errors.Is(err, ErrNoNS3) && !strings.Contains(err.Error(), "libns3-dev") {
		t.Errorf("error %q does not say what to install", err)
	}
	_, err = FindToolchain(BuildOptions{CXX: "no-such-compiler-xyz"})
	if !errors.Is(err, ErrNoCompiler) {
		t.Errorf("FindToolchain(no compiler) = %v, want ErrNoCompiler", err)
	}
}
