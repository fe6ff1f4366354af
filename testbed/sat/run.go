package sat

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
)

// Config describes one testbed run. The zero value is not useful; start
// from DefaultConfig.
type Config struct {
	// OutDir receives the run's captures, sidecars, logs and result.json;
	// it is created if missing.
	OutDir string `json:"-"`
	// Name labels the run (e.g. "pep-on_window-20KB").
	Name string `json:"name"`
	// PEP enables the transparent split-TCP proxy in the router.
	PEP bool `json:"pep"`
	// CC is the congestion control of the iperf3 sender (iperf3 -C) and of
	// the PEP's sockets: cubic, reno or bbr.
	CC string `json:"cc"`
	// WindowBytes, if > 0, is passed to iperf3 -w (socket buffer and hence
	// window limit, bytes, on client and server); 0 keeps the defaults.
	WindowBytes int `json:"window_bytes"`
	// Duration is the iperf3 transfer time (-t, rounded up to whole seconds).
	Duration time.Duration `json:"duration_ns"`
	// Sat is the satellite hop between router and server, both directions.
	Sat LinkParams `json:"sat"`
	// LAN is the hop between client and router, both directions.
	LAN LinkParams `json:"lan"`
	// PEPBufBytes, if > 0, forces SO_RCVBUF/SO_SNDBUF (bytes) on the PEP's
	// sockets; 0 keeps autotuning, which the router namespace lets grow from
	// 1 MiB to 16 MiB (tcp_rmem/tcp_wmem), i.e. large buffers as in PEPsal.
	PEPBufBytes int `json:"pep_buf_bytes"`
	// Emulator chooses the link emulation: "auto" (netem if the kernel has
	// it, else user space), "userspace" or "netem".
	Emulator string `json:"emulator"`
	// Snaplen is tcpdump's -s, bytes per frame kept.
	Snaplen int `json:"snaplen"`
	// Seed seeds the emulators' loss and jitter PRNGs.
	Seed uint64 `json:"seed"`
	// Helper is the argv prefix that re-executes this program's helper entry
	// point (see Helper); a role and a JSON argument are appended. The CLI
	// uses [/proc/self/exe testbed sat-helper].
	Helper []string `json:"-"`
	// HelperEnv is added to the helper's environment.
	HelperEnv []string `json:"-"`
}

// DefaultConfig returns the study's setup: 300 ms one-way satellite delay
// at 10 Mbit/s with a one-BDP (750 000 B) queue, a 100 Mbit/s LAN with 5 ms
// one-way delay, cubic, 20 s, no PEP.
func DefaultConfig() Config {
	return Config{
		CC:       "cubic",
		Duration: 20 * time.Second,
		Sat:      LinkParams{RateBps: 10e6, Delay: 300 * time.Millisecond},
		LAN:      LinkParams{RateBps: 100e6, Delay: 5 * time.Millisecond},
		Emulator: "auto",
		Snaplen:  96,
		Seed:     1,
		Helper:   []string{"/proc/self/exe", "testbed", "sat-helper"},
	}
}

// bdpQueue fills in a one-BDP queue (rate × 2 × delay) if none is set.
func bdpQueue(p LinkParams) LinkParams {
	if p.QueueBytes == 0 && p.RateBps > 0 {
		p.QueueBytes = int(p.RateBps / 8 * int64(2*p.Delay) / int64(time.Second))
		if p.QueueBytes < 64<<10 {
			p.QueueBytes = 64 << 10
		}
	}
	return p
}

// Addresses used inside the run's namespaces (never on the host).
const (
	cliIP    = "10.77.1.2"
	rtrLanIP = "10.77.1.1"
	rtrSatIP = "10.77.2.1"
	srvIP    = "10.77.2.2"
	cliMAC   = "02:77:00:01:00:02"
	rtrLMAC  = "02:77:00:01:00:01"
	rtrSMAC  = "02:77:00:02:00:01"
	srvMAC   = "02:77:00:02:00:02"
	pepPort  = 5999
	iperfPrt = 5201
	// NSPrefix starts the name of every namespace a run creates.
	NSPrefix = "tvsat-"
)

// Result is what one run produced.
type Result struct {
	Name       string  `json:"name"`           // run name, e.g. "pep-on_window-20KB"
	Dir        string  `json:"dir"`            // absolute output directory of the run
	Config     Config  `json:"config"`         // parameters as run (queues filled in)
	Emulator   string  `json:"emulator"`       // "userspace" or "netem", as used
	Namespaces string  `json:"namespaces"`     // the run's namespace prefix
	ClientPcap string  `json:"client_pcap"`    // capture on the client's interface
	ServerPcap string  `json:"server_pcap"`    // capture on the server's interface
	Client     Summary `json:"client"`         // summary of ClientPcap (sender side)
	SentBps    float64 `json:"iperf_sent_bps"` // iperf3 sender average, bit/s
	RecvBps    float64 `json:"iperf_recv_bps"` // iperf3 receiver average, bit/s
}

// Sidecar is written next to each capture as NAME.json (client.json next
// to client.pcap) and describes how the capture was made.
type Sidecar struct {
	Tool      string    `json:"tool"`       // "tcpviz testbed sat"
	Capture   string    `json:"capture"`    // capture file name
	Vantage   string    `json:"vantage"`    // "client" (sender) or "server" (receiver)
	Interface string    `json:"interface"`  // interface captured on
	Started   time.Time `json:"started"`    // wall-clock time the captures started
	Emulator  string    `json:"emulator"`   // "userspace" or "netem"
	Config    Config    `json:"config"`     // run parameters
	ClientIP  string    `json:"client_ip"`  // iperf3 client (TCP sender)
	ServerIP  string    `json:"server_ip"`  // iperf3 server (TCP receiver)
	RouterIPs []string  `json:"router_ips"` // router (PEP) LAN and satellite side
	Notes     string    `json:"notes"`      // free text for humans
	// Summary is Summarize of the client capture, added after the run
	// (client sidecar only); nil if the run did not finish.
	Summary      *Summary `json:"summary,omitempty"`
	IperfSentBps float64  `json:"iperf_sent_bps,omitempty"` // iperf3 sender average, bit/s (client sidecar, after the run)
	IperfRecvBps float64  `json:"iperf_recv_bps,omitempty"` // iperf3 receiver average, bit/s (client sidecar, after the run)
}

type proc struct {
	name    string
	cmd     *exec.Cmd
	sig     syscall.Signal // polite stop signal
	done    chan struct{}  // closed when the process has been reaped
	err     error          // Wait's result; valid once done is closed
	logDone chan struct{}  // closed when its output is copied to the log
	once    sync.Once
}

type runner struct {
	cfg    Config
	logf   func(string, ...any)
	prefix string
	mu     sync.Mutex
	nss    []string
	procs  []*proc
}

func (r *runner) ns(role string) string { return r.prefix + role }

// cmd runs a short command to completion and returns its combined output.
func (r *runner) cmd(ctx context.Context, stdin string, argv ...string) (string, error) {
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Env = append(os.Environ(), r.cfg.HelperEnv...)
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	out, err := c.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, bytes.TrimSpace(out))
	}
	return string(out), nil
}

func (r *runner) in(ctx context.Context, ns string, argv ...string) error {
	_, err := r.cmd(ctx, "", append([]string{"ip", "netns", "exec", ns}, argv...)...)
	return err
}

// start launches argv inside ns in its own process group, logging its
// stdout and stderr to logPath. If ready is not empty, start waits (up to
// 10 s) for an output line containing it.
func (r *runner) start(ctx context.Context, name, ns string, sig syscall.Signal, logPath, ready string, argv ...string) (*proc, error) {
	full := append([]string{"ip", "netns", "exec", ns}, argv...)
	c := exec.Command(full[0], full[1:]...)
	// ip netns exec execs argv in place, so the process group is argv's.
	c.SysProcAttr = groupAttr()
	c.Env = append(os.Environ(), r.cfg.HelperEnv...)
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		lf.Close()
		return nil, err
	}
	c.Stdout, c.Stderr = pw, pw
	if err := c.Start(); err != nil {
		pw.Close()
		pr.Close()
		lf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	pw.Close()
	p := &proc{name: name, cmd: c, sig: sig, done: make(chan struct{}), logDone: make(chan struct{})}
	r.mu.Lock()
	r.procs = append(r.procs, p)
	r.mu.Unlock()
	readyc := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(p.logDone)
		defer lf.Close()
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(lf, line)
			if ready != "" && strings.Contains(line, ready) {
				once.Do(func() { close(readyc) })
			}
		}
	}()
	go func() {
		p.err = c.Wait()
		close(p.done)
	}()
	if ready == "" {
		return p, nil
	}
	select {
	case <-readyc:
		return p, nil
	case <-p.done:
		return p, fmt.Errorf("%s exited before ready: %v (see %s)", name, p.err, logPath)
	case <-time.After(10 * time.Second):
		return p, fmt.Errorf("%s not ready after 10s (see %s)", name, logPath)
	case <-ctx.Done():
		return p, ctx.Err()
	}
}

// stop asks p's process group to stop with p's polite signal and kills the
// group after grace. It is idempotent. Signals go to the group only while
// its leader is unreaped, so a recycled process group id is never hit;
// anything else left in a namespace is found by cleanup.
func (p *proc) stop(grace time.Duration) {
	p.once.Do(func() {
		select {
		case <-p.done:
		default:
			killGroup(p.cmd.Process.Pid, p.sig)
			select {
			case <-p.done:
			case <-time.After(grace):
				killGroup(p.cmd.Process.Pid, syscall.SIGKILL)
				<-p.done
			}
		}
		select { // let the log copier drain
		case <-p.logDone:
		case <-time.After(time.Second):
		}
	})
}

// cleanup stops every process, kills anything left in the run's
// namespaces, deletes them and verifies that none is left.
func (r *runner) cleanup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.mu.Lock()
	procs := r.procs
	nss := r.nss
	r.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop(3 * time.Second)
	}
	var errs []error
	for _, ns := range nss {
		if out, err := r.cmd(ctx, "", "ip", "netns", "pids", ns); err == nil {
			for _, f := range strings.Fields(out) {
				if pid, err := strconv.Atoi(f); err == nil {
					r.logf("killing leftover pid %d in %s", pid, ns)
					killPID(pid, syscall.SIGKILL)
				}
			}
		}
		if _, err := r.cmd(ctx, "", "ip", "netns", "del", ns); err != nil {
			errs = append(errs, err)
		}
	}
	if left, err := ListNamespaces(ctx, r.prefix); err != nil {
		errs = append(errs, err)
	} else if len(left) > 0 {
		errs = append(errs, fmt.Errorf("namespaces left behind: %v", left))
	}
	return errors.Join(errs...)
}

// ListNamespaces returns the named network namespaces whose names start
// with prefix (all of them for "").
func ListNamespaces(ctx context.Context, prefix string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "ip", "netns", "list").Output()
	if err != nil {
		return nil, fmt.Errorf("ip netns list: %w", err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && strings.HasPrefix(f[0], prefix) {
			names = append(names, f[0])
		}
	}
	return names, nil
}

// CleanupStale deletes every namespace whose name starts with NSPrefix
// (left by a killed run) after killing the processes inside it, and returns
// the names it deleted.
func CleanupStale(ctx context.Context) ([]string, error) {
	names, err := ListNamespaces(ctx, NSPrefix)
	if err != nil {
		return nil, err
	}
	r := &runner{logf: func(string, ...any) {}, prefix: NSPrefix, nss: names}
	return names, r.cleanup()
}

// CheckTools returns an error naming the first missing program Run needs.
func CheckTools(pep bool) error {
	need := []string{"ip", "tc", "iperf3", "tcpdump", "ss"}
	if pep {
		need = append(need, "nft")
	}
	for _, t := range need {
		if _, err := exec.LookPath(t); err != nil {
			return fmt.Errorf("%s not found in PATH", t)
		}
	}
	return nil
}

var netemProbe struct {
	once sync.Once
	ok   bool
}

// Run executes one testbed run: fresh namespaces, emulators, optional PEP,
// iperf3 upload with captures at client and server. It always removes what
// it created, also when ctx is cancelled or a step fails. logf may be nil.
func Run(ctx context.Context, cfg Config, logf func(string, ...any)) (res Result, err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if cfg.Name == "" {
		cfg.Name = "run"
	}
	if cfg.Snaplen == 0 {
		cfg.Snaplen = 96
	}
	if cfg.CC == "" {
		cfg.CC = "cubic"
	}
	if cfg.Duration < time.Second {
		cfg.Duration = time.Second
	}
	cfg.Sat = bdpQueue(cfg.Sat)
	cfg.LAN = bdpQueue(cfg.LAN)
	if err := CheckTools(cfg.PEP); err != nil {
		return res, err
	}
	if len(cfg.Helper) == 0 {
		return res, errors.New("config: Helper is empty")
	}
	dir, err := filepath.Abs(cfg.OutDir)
	if err != nil {
		return res, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	var rnd [3]byte
	rand.Read(rnd[:])
	r := &runner{cfg: cfg, logf: logf, prefix: NSPrefix + hex.EncodeToString(rnd[:]) + "-"}
	res = Result{Name: cfg.Name, Dir: dir, Config: cfg, Namespaces: r.prefix}
	defer func() {
		if cerr := r.cleanup(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("cleanup: %w", cerr))
		}
	}()
	logf("run %s: namespaces %s{cli,lan,rtr,sat,srv}", cfg.Name, r.prefix)
	if err := r.topology(ctx); err != nil {
		return res, fmt.Errorf("topology: %w", err)
	}
	emu, err := r.emulators(ctx, dir)
	if err != nil {
		return res, fmt.Errorf("emulators: %w", err)
	}
	res.Emulator = emu
	logf("run %s: link emulation: %s", cfg.Name, emu)
	if cfg.PEP {
		if err := r.pep(ctx, dir); err != nil {
			return res, fmt.Errorf("pep: %w", err)
		}
	}
	if err := r.traffic(ctx, dir, &res); err != nil {
		return res, err
	}
	sum, err := Summarize(res.ClientPcap)
	if err != nil {
		return res, fmt.Errorf("summarize client capture: %w", err)
	}
	res.Client = sum
	if err := addSummary(strings.TrimSuffix(res.ClientPcap, ".pcap")+".json", res); err != nil {
		return res, err
	}
	if err := os.WriteFile(filepath.Join(dir, "result.json"), indentJSON(res), 0o644); err != nil {
		return res, err
	}
	return res, nil
}

func (r *runner) topology(ctx context.Context) error {
	roles := []string{"cli", "lan", "rtr", "sat", "srv"}
	for _, role := range roles {
		ns := r.ns(role)
		if _, err := r.cmd(ctx, "", "ip", "netns", "add", ns); err != nil {
			return err
		}
		r.mu.Lock()
		r.nss = append(r.nss, ns)
		r.mu.Unlock()
		for _, kv := range []string{
			"net.ipv6.conf.all.disable_ipv6=1",
			"net.ipv6.conf.default.disable_ipv6=1",
			"net.ipv4.tcp_no_metrics_save=1",
		} {
			if err := r.in(ctx, ns, "sysctl", "-qw", kv); err != nil {
				return err
			}
		}
		if err := r.in(ctx, ns, "ip", "link", "set", "lo", "up"); err != nil {
			return err
		}
	}
	type veth struct{ a, ans, amac, b, bns, bmac string }
	links := []veth{
		{"c0", "cli", cliMAC, "l0", "lan", ""},
		{"l1", "lan", "", "r0", "rtr", rtrLMAC},
		{"r1", "rtr", rtrSMAC, "s0", "sat", ""},
		{"s1", "sat", "", "v0", "srv", srvMAC},
	}
	ifs := map[string][]string{}
	for _, l := range links {
		argv := []string{"ip", "link", "add", l.a, "netns", r.ns(l.ans)}
		if l.amac != "" {
			argv = append(argv, "address", l.amac)
		}
		argv = append(argv, "type", "veth", "peer", "name", l.b, "netns", r.ns(l.bns))
		if l.bmac != "" {
			argv = append(argv, "address", l.bmac)
		}
		if _, err := r.cmd(ctx, "", argv...); err != nil {
			return err
		}
		ifs[l.ans] = append(ifs[l.ans], l.a)
		ifs[l.bns] = append(ifs[l.bns], l.b)
	}
	for _, role := range roles {
		js, _ := json.Marshal(ifs[role])
		if err := r.in(ctx, r.ns(role), append(append([]string(nil), r.cfg.Helper...), "offload", string(js))...); err != nil {
			return fmt.Errorf("offloads off: %w", err)
		}
		for _, ifn := range ifs[role] {
			if err := r.in(ctx, r.ns(role), "ip", "link", "set", ifn, "up"); err != nil {
				return err
			}
		}
	}
	steps := [][]string{
		{"cli", "ip", "addr", "add", cliIP + "/24", "dev", "c0"},
		{"cli", "ip", "route", "add", "default", "via", rtrLanIP},
		{"cli", "ip", "neigh", "replace", rtrLanIP, "lladdr", rtrLMAC, "dev", "c0", "nud", "permanent"},
		{"rtr", "ip", "addr", "add", rtrLanIP + "/24", "dev", "r0"},
		{"rtr", "ip", "addr", "add", rtrSatIP + "/24", "dev", "r1"},
		{"rtr", "sysctl", "-qw", "net.ipv4.ip_forward=1"},
		{"rtr", "ip", "neigh", "replace", cliIP, "lladdr", cliMAC, "dev", "r0", "nud", "permanent"},
		{"rtr", "ip", "neigh", "replace", srvIP, "lladdr", srvMAC, "dev", "r1", "nud", "permanent"},
		{"srv", "ip", "addr", "add", srvIP + "/24", "dev", "v0"},
		{"srv", "ip", "route", "add", "default", "via", rtrSatIP},
		{"srv", "ip", "neigh", "replace", rtrSatIP, "lladdr", rtrSMAC, "dev", "v0", "nud", "permanent"},
	}
	for _, s := range steps {
		if err := r.in(ctx, r.ns(s[0]), s[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// emulators sets up the LAN and satellite hops and returns "userspace" or
// "netem".
func (r *runner) emulators(ctx context.Context, dir string) (string, error) {
	mode := r.cfg.Emulator
	if mode == "" || mode == "auto" || mode == "netem" {
		netemProbe.once.Do(func() {
			// Probe once per process, on an interface of our own namespace.
			err := r.in(ctx, r.ns("sat"), "tc", "qdisc", "add", "dev", "s0", "root", "netem", "delay", "1ms")
			netemProbe.ok = err == nil
			if err == nil {
				r.in(ctx, r.ns("sat"), "tc", "qdisc", "del", "dev", "s0", "root")
			}
			r.logf("netem probe: available=%v", netemProbe.ok)
		})
		switch {
		case netemProbe.ok:
			mode = "netem"
		case mode == "netem":
			return "", errors.New("netem requested but this kernel has no netem qdisc")
		default:
			mode = "userspace"
		}
	}
	hops := []struct {
		role, a, b string
		p          LinkParams
	}{
		{"lan", "l0", "l1", r.cfg.LAN},
		{"sat", "s0", "s1", r.cfg.Sat},
	}
	for i, h := range hops {
		if mode == "netem" {
			if err := r.netemHop(ctx, r.ns(h.role), h.a, h.b, h.p); err != nil {
				return "", err
			}
			continue
		}
		ec := EmuConfig{A: h.a, B: h.b, AtoB: h.p, BtoA: h.p, Seed: r.cfg.Seed*16 + uint64(i)}
		js, _ := json.Marshal(ec)
		argv := append(append([]string(nil), r.cfg.Helper...), "emu", string(js))
		if _, err := r.start(ctx, "emu-"+h.role, r.ns(h.role), syscall.SIGTERM,
			filepath.Join(dir, "emu-"+h.role+".log"), "ready", argv...); err != nil {
			return "", err
		}
	}
	return mode, nil
}

// netemHop bridges a and b with tc mirred redirects and puts netem on both
// egresses. Used only where the kernel has netem (not on the project's
// machines, so this path is untested there).
func (r *runner) netemHop(ctx context.Context, ns, a, b string, p LinkParams) error {
	for _, pr := range [][2]string{{a, b}, {b, a}} {
		in, out := pr[0], pr[1]
		steps := [][]string{
			{"tc", "qdisc", "add", "dev", in, "handle", "ffff:", "ingress"},
			{"tc", "filter", "add", "dev", in, "parent", "ffff:", "protocol", "all", "u32", "match", "u32", "0", "0",
				"action", "mirred", "egress", "redirect", "dev", out},
		}
		ne := []string{"tc", "qdisc", "add", "dev", out, "root", "netem", "delay", fmt.Sprintf("%dus", p.Delay.Microseconds())}
		if p.Jitter > 0 {
			ne = append(ne, fmt.Sprintf("%dus", p.Jitter.Microseconds()))
		}
		if p.RateBps > 0 {
			ne = append(ne, "rate", fmt.Sprintf("%dbit", p.RateBps))
		}
		if p.Loss > 0 {
			ne = append(ne, "loss", fmt.Sprintf("%g%%", p.Loss*100))
		}
		if p.QueueBytes > 0 {
			ne = append(ne, "limit", strconv.Itoa(p.QueueBytes/1514+1))
		}
		steps = append(steps, ne)
		for _, s := range steps {
			if err := r.in(ctx, ns, s...); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *runner) pep(ctx context.Context, dir string) error {
	ns := r.ns("rtr")
	rules := fmt.Sprintf(`table ip tcpviz_pep {
	chain prerouting {
		type filter hook prerouting priority mangle; policy accept;
		iifname "r0" meta l4proto tcp tproxy to :%d meta mark set 1 accept
	}
}
`, pepPort)
	if _, err := r.cmd(ctx, rules, "ip", "netns", "exec", ns, "nft", "-f", "-"); err != nil {
		return err
	}
	for _, s := range [][]string{
		{"ip", "rule", "add", "fwmark", "1", "lookup", "100"},
		{"ip", "route", "add", "local", "0.0.0.0/0", "dev", "lo", "table", "100"},
		{"sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0"},
		{"sysctl", "-qw", "net.ipv4.conf.default.rp_filter=0"},
		{"sysctl", "-qw", "net.ipv4.conf.r0.rp_filter=0"},
		// Large buffers as PEPsal setups use: autotuning from 1 MiB up to 16 MiB.
		{"sysctl", "-qw", "net.ipv4.tcp_rmem=4096 1048576 16777216"},
		{"sysctl", "-qw", "net.ipv4.tcp_wmem=4096 1048576 16777216"},
	} {
		if err := r.in(ctx, ns, s...); err != nil {
			return err
		}
	}
	pc := PEPConfig{Listen: fmt.Sprintf("0.0.0.0:%d", pepPort), CC: r.cfg.CC, BufBytes: r.cfg.PEPBufBytes}
	js, _ := json.Marshal(pc)
	argv := append(append([]string(nil), r.cfg.Helper...), "pep", string(js))
	_, err := r.start(ctx, "pep", ns, syscall.SIGTERM, filepath.Join(dir, "pep.log"), "ready", argv...)
	return err
}

func (r *runner) traffic(ctx context.Context, dir string, res *Result) error {
	cfg := r.cfg
	srvNS, cliNS := r.ns("srv"), r.ns("cli")
	port := strconv.Itoa(iperfPrt)
	srv, err := r.start(ctx, "iperf3-server", srvNS, syscall.SIGTERM, filepath.Join(dir, "iperf3-server.log"), "",
		"iperf3", "-s", "-1", "-B", srvIP, "-p", port)
	if err != nil {
		return err
	}
	// Wait for the server socket.
	for i := 0; ; i++ {
		out, _ := r.cmd(ctx, "", "ip", "netns", "exec", srvNS, "ss", "-Hltn", "sport = :"+port)
		if strings.Contains(out, port) {
			break
		}
		if i == 100 {
			return errors.New("iperf3 server not listening after 5s")
		}
		select {
		case <-srv.done:
			return fmt.Errorf("iperf3 server exited: %v", srv.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	started := time.Now().UTC()
	res.ClientPcap = filepath.Join(dir, "client.pcap")
	res.ServerPcap = filepath.Join(dir, "server.pcap")
	caps := []struct{ vantage, ns, ifn, path string }{
		{"client", cliNS, "c0", res.ClientPcap},
		{"server", srvNS, "v0", res.ServerPcap},
	}
	var dumps []*proc
	for _, c := range caps {
		p, err := r.start(ctx, "tcpdump-"+c.vantage, c.ns, syscall.SIGINT, filepath.Join(dir, "tcpdump-"+c.vantage+".log"), "listening on",
			"tcpdump", "-i", c.ifn, "-s", strconv.Itoa(cfg.Snaplen), "-U", "-Z", "root", "-n", "-w", c.path, "tcp")
		if err != nil {
			return err
		}
		dumps = append(dumps, p)
		sc := Sidecar{
			Tool: "tcpviz testbed sat", Capture: filepath.Base(c.path), Vantage: c.vantage, Interface: c.ifn,
			Started: started, Emulator: res.Emulator, Config: cfg, ClientIP: cliIP, ServerIP: srvIP,
			RouterIPs: []string{rtrLanIP, rtrSatIP},
			Notes: "iperf3 upload client->server; the client is the TCP sender. " +
				"With pep=true the router splits each connection, so the client capture shows the LAN RTT.",
		}
		if err := os.WriteFile(strings.TrimSuffix(c.path, ".pcap")+".json", indentJSON(sc), 0o644); err != nil {
			return err
		}
	}
	secs := int((cfg.Duration + time.Second - 1) / time.Second)
	argv := []string{"ip", "netns", "exec", cliNS, "iperf3", "-c", srvIP, "-p", port, "-t", strconv.Itoa(secs), "-C", cfg.CC, "-J"}
	if cfg.WindowBytes > 0 {
		argv = append(argv, "-w", strconv.Itoa(cfg.WindowBytes))
	}
	cctx, cancel := context.WithTimeout(ctx, time.Duration(secs)*time.Second+60*time.Second)
	defer cancel()
	r.logf("run %s: %s", cfg.Name, strings.Join(argv[4:], " "))
	c := exec.CommandContext(cctx, argv[0], argv[1:]...)
	c.SysProcAttr = groupAttr()
	var out, stderr bytes.Buffer
	c.Stdout, c.Stderr = &out, &stderr
	runErr := c.Run()
	os.WriteFile(filepath.Join(dir, "iperf3-client.json"), out.Bytes(), 0o644)
	if runErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("iperf3 client: %w: %s%s", runErr, bytes.TrimSpace(stderr.Bytes()), iperfError(out.Bytes()))
	}
	res.SentBps, res.RecvBps = iperfRates(out.Bytes())
	// Let the last ACKs and FINs cross the satellite hop before stopping.
	select {
	case <-time.After(2*cfg.Sat.Delay + 500*time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	for _, d := range dumps {
		d.stop(5 * time.Second)
	}
	return nil
}

// addSummary rewrites the client sidecar at path with the run's results.
func addSummary(path string, res Result) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var sc Sidecar
	if err := json.Unmarshal(b, &sc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc.Summary, sc.IperfSentBps, sc.IperfRecvBps = &res.Client, res.SentBps, res.RecvBps
	return os.WriteFile(path, indentJSON(sc), 0o644)
}

// indentJSON encodes v indented, without HTML escaping ("->" stays readable).
func indentJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err) // only plain data types are encoded here
	}
	return b.Bytes()
}

func iperfRates(js []byte) (sent, recv float64) {
	var v struct {
		End struct {
			SumSent struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_sent"`
			SumReceived struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	json.Unmarshal(js, &v)
	return v.End.SumSent.BitsPerSecond, v.End.SumReceived.BitsPerSecond
}

func iperfError(js []byte) string {
	var v struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(js, &v) == nil && v.Error != "" {
		return " (" + v.Error + ")"
	}
	return ""
}

// RunMatrix runs one Run per point of axes (sequentially, fresh namespaces
// each), each in outDir/POINT-NAME, starting from base. It continues after
// a failed run unless ctx is cancelled and returns the results of the runs
// that succeeded together with the joined errors.
func RunMatrix(ctx context.Context, base Config, outDir string, axes []Axis, logf func(string, ...any)) ([]Result, error) {
	var results []Result
	var errs []error
	for _, pt := range Expand(axes) {
		if ctx.Err() != nil {
			errs = append(errs, ctx.Err())
			break
		}
		cfg := base
		for _, kv := range pt {
			if err := cfg.Set(kv.Key, kv.Value); err != nil {
				return results, err
			}
		}
		cfg.Name = pt.Name()
		if len(axes) == 0 {
			cfg.Name = Point{{"pep", onOff(cfg.PEP)}, {"window", windowName(cfg.WindowBytes)}}.Name()
		}
		cfg.OutDir = filepath.Join(outDir, cfg.Name)
		res, err := Run(ctx, cfg, logf)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", cfg.Name, err))
			continue
		}
		results = append(results, res)
	}
	return results, errors.Join(errs...)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func windowName(n int) string {
	switch {
	case n == 0:
		return "default"
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKB", n>>10)
	}
	return strconv.Itoa(n)
}

// Helper is the entry point of the processes Run starts inside namespaces
// (through Config.Helper). role is "emu" (arg: EmuConfig JSON), "pep" (arg:
// PEPConfig JSON) or "offload" (arg: JSON list of interface names). It
// prints "ready" on out once serving, then runs until ctx is cancelled.
func Helper(ctx context.Context, role, arg string, out io.Writer) error {
	logf := func(f string, a ...any) { fmt.Fprintf(out, time.Now().UTC().Format("15:04:05.000 ")+f+"\n", a...) }
	ready := func() { fmt.Fprintln(out, "ready") }
	switch role {
	case "emu":
		var c EmuConfig
		if err := json.Unmarshal([]byte(arg), &c); err != nil {
			return fmt.Errorf("emu config: %w", err)
		}
		c.Ready, c.Logf = ready, logf
		return RunEmulator(ctx, c)
	case "pep":
		var c PEPConfig
		if err := json.Unmarshal([]byte(arg), &c); err != nil {
			return fmt.Errorf("pep config: %w", err)
		}
		c.Ready, c.Logf = ready, logf
		return RunPEP(ctx, c)
	case "offload":
		var ifs []string
		if err := json.Unmarshal([]byte(arg), &ifs); err != nil {
			return fmt.Errorf("offload interfaces: %w", err)
		}
		for _, i := range ifs {
			if err := DisableOffloads(i); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown helper role %q", role)
}

// WriteResults prints one line per run of a matrix, in left-aligned
// columns: the run's name and emulator, the client capture's handshake RTT
// and median ACK RTT in ms, the bytes sequenced and acknowledged in the
// first second of bulk data, iperf3's sent and received rates in Mbit/s,
// and the client capture's path relative to the working directory.
// Errors: w's.
func WriteResults(w io.Writer, results []Result) error {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/1e6) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\temulator\thandshake_ms\tack_rtt_median_ms\tseq_1s_B\tacked_1s_B\tsent_Mbit/s\trecv_Mbit/s\tclient capture")
	for _, r := range results {
		rel, err := filepath.Rel(".", r.ClientPcap)
		if err != nil {
			rel = r.ClientPcap
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%.2f\t%.2f\t%s\n", r.Name, r.Emulator,
			ms(r.Client.HandshakeRTT), ms(r.Client.ACKRTTMedian), r.Client.SeqProgress1s, r.Client.Acked1s,
			r.SentBps/1e6, r.RecvBps/1e6, rel)
	}
	return tw.Flush()
}
