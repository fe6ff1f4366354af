package manet

import (
	"embed"
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// scenarioFS holds the C++ scenario: manet-tcp.cc (the program) and
// anthocnet.h (tcpviz's AntHocNet routing protocol, docs/anthocnet.md).
//
//go:embed scenario/manet-tcp.cc scenario/anthocnet.h
var scenarioFS embed.FS

// scenarioFiles are the embedded scenario files in build order; the first
// is the one the compiler is given.
var scenarioFiles = []string{"manet-tcp.cc", "anthocnet.h"}

var scenarioSource = mustRead("manet-tcp.cc")

func mustRead(name string) []byte {
	b, err := fs.ReadFile(scenarioFS, "scenario/"+name)
	if err != nil {
		panic(err) // embedded at build time: cannot happen
	}
	return b
}

// Source returns the embedded C++ source of the ns-3 scenario program
// (manet-tcp.cc; it includes anthocnet.h, see SourceFiles).
func Source() []byte { return append([]byte(nil), scenarioSource...) }

// SourceFiles returns every embedded scenario file by name.
func SourceFiles() map[string][]byte {
	m := map[string][]byte{}
	for _, n := range scenarioFiles {
		m[n] = mustRead(n)
	}
	return m
}

// Protocols lists the routing protocols the scenario supports, in the order
// the campaign runs them. Other names go to the routing-helper hook
// (BuildOptions.HookFile, docs/testbed-manet.md#routing-hook).
var Protocols = []string{"anthocnet", "aodv", "olsr", "dsdv"}

// Scenario holds the knobs shared by all runs of a campaign. The zero value
// is not useful; start from DefaultScenario.
type Scenario struct {
	Transport string        // "tcp" (BulkSend → PacketSink) or "udp" (100 kbps CBR)
	Nodes     int           // number of nodes
	AreaX     float64       // area width, metres
	AreaY     float64       // area height, metres
	Time      time.Duration // simulated time; flows stop at the end
	Speed     float64       // RandomWaypoint maximum speed, m/s (speed ~ U[0, Speed])
	Pause     time.Duration // RandomWaypoint pause
	Flows     int           // number of flows
	Pcap      bool          // write pcaps on flow sources and sinks
	// Preset names the preset the knobs started from ("" for none); it is
	// echoed into every run's config file.
	Preset string
	// StartMin and StartMax bound the flows' uniform start times. Both 0
	// means the scenario's default U[10,20] s (U[T/4,T/2] when T < 40 s);
	// the window also shrinks to U[T/4,T/2] when StartMax > T/2.
	StartMin, StartMax time.Duration
	// CBRRate ("512bps", "100kbps") and PktSize (bytes) shape the UDP CBR
	// flows; "" and 0 mean the scenario's 100 kbps with 1000-byte packets.
	CBRRate string
	PktSize int
	// Extra is passed verbatim after the generated arguments, e.g.
	// "--ns3::TcpSocket::ConnCount=20". nil means none.
	Extra []string
}

// DefaultScenario returns the scenario of shared/ns3: 20 nodes in
// 1000 × 300 m for 100 s, speed 20 m/s, pause 30 s, 4 TCP flows, pcaps on.
func DefaultScenario() Scenario {
	return Scenario{
		Transport: "tcp",
		Nodes:     20,
		AreaX:     1000,
		AreaY:     300,
		Time:      100 * time.Second,
		Speed:     20,
		Pause:     30 * time.Second,
		Flows:     4,
		Pcap:      true,
	}
}

// Preset names accepted by PresetScenario.
const (
	PresetPaperBase    = "paper-base"
	PresetPaperBaseUDP = "paper-base-udp"
)

// Presets lists the preset names.
var Presets = []string{PresetPaperBase, PresetPaperBaseUDP}

// PresetScenario returns the scenario of a named preset:
//
//   - paper-base: the reference study's "paper base scenario"
//     (../shared/background/manet-tcp-arm.txt): 50 nodes in 1500 × 300 m
//     for 900 s, RandomWaypoint with maximum speed 20 m/s and pause 30 s,
//     TwoRayGround, 20 TCP flows (BulkSend over TcpCubic), flows starting
//     at U[0,180] s.
//   - paper-base-udp: the same with the UDP CBR control in place of TCP:
//     one 64-byte packet per second per flow (512 bit/s), the traffic of
//     the AntHocNet papers' base scenario.
//
// Every field can be changed afterwards; the preset name stays in Preset.
func PresetScenario(name string) (Scenario, error) {
	s := DefaultScenario()
	switch name {
	case PresetPaperBase, PresetPaperBaseUDP:
		s.Nodes, s.AreaX, s.AreaY = 50, 1500, 300
		s.Time = 900 * time.Second
		s.Speed, s.Pause = 20, 30*time.Second
		s.Flows = 20
		s.StartMin, s.StartMax = 0, 180*time.Second
		s.Preset = name
		if name == PresetPaperBaseUDP {
			s.Transport = "udp"
			s.CBRRate, s.PktSize = "512bps", 64
		}
		return s, nil
	}
	return s, fmt.Errorf("preset %q: want one of %v", name, Presets)
}

// dataRate is ns-3's DataRate syntax: a positive number, optionally with
// an SI or binary prefix and a bit or byte unit per second.
var dataRate = regexp.MustCompile(`^(0*[1-9][0-9]*(\.[0-9]+)?|0*\.[0-9]*[1-9][0-9]*)([kKMG]i?)?(bps|b/s|Bps|B/s)?$`)

// Validate reports the first knob that the scenario binary would reject.
func (s Scenario) Validate() error {
	switch {
	case s.Transport != "tcp" && s.Transport != "udp":
		return fmt.Errorf("transport %q: want tcp or udp", s.Transport)
	case s.Nodes < 2:
		return fmt.Errorf("nodes %d: want at least 2", s.Nodes)
	case s.Flows < 1:
		return fmt.Errorf("flows %d: want at least 1", s.Flows)
	case s.AreaX <= 0 || s.AreaY <= 0:
		return fmt.Errorf("area %gx%g: want positive sides", s.AreaX, s.AreaY)
	case s.Time <= 0:
		return fmt.Errorf("time %v: want > 0", s.Time)
	case !(s.Speed >= 0 && s.Speed < math.Inf(1)): // NaN too
		return fmt.Errorf("speed %g: want >= 0", s.Speed)
	case s.CBRRate != "" && !dataRate.MatchString(s.CBRRate):
		return fmt.Errorf("CBR rate %q: want a positive ns-3 DataRate such as 100kbps, 512bps or 1.5Mb/s", s.CBRRate)
	case s.Pause < 0:
		return fmt.Errorf("pause %v: want >= 0", s.Pause)
	case s.StartMin < 0 || s.StartMax < s.StartMin:
		return fmt.Errorf("flow start window [%v, %v]: want 0 <= min <= max", s.StartMin, s.StartMax)
	case s.PktSize < 0:
		return fmt.Errorf("packet size %d: want > 0", s.PktSize)
	case s.Preset != "" && !slices.Contains(Presets, s.Preset):
		return fmt.Errorf("preset %q: want one of %v", s.Preset, Presets)
	}
	return nil
}

// Run names one simulation of a campaign: a routing protocol at a
// realisation. All protocols of one Seed share mobility and flow table.
type Run struct {
	Protocol string // one of Protocols, or a name the routing-helper hook knows
	Seed     int    // ns-3 run number (RngSeedManager::SetRun), >= 1
}

// Prefix returns the file prefix of run r, "<transport>-<protocol>-r<seed>".
func (s Scenario) Prefix(r Run) string {
	return fmt.Sprintf("%s-%s-r%d", s.Transport, r.Protocol, r.Seed)
}

// Args returns the scenario binary's command line (without the program
// name) for run r, in ns-3 CommandLine syntax.
func (s Scenario) Args(r Run) []string {
	pcap := "0"
	if s.Pcap {
		pcap = "1"
	}
	args := []string{
		"--protocol=" + r.Protocol,
		"--transport=" + s.Transport,
		"--run=" + strconv.Itoa(r.Seed),
		"--nNodes=" + strconv.Itoa(s.Nodes),
		"--areaX=" + formatFloat(s.AreaX),
		"--areaY=" + formatFloat(s.AreaY),
		"--time=" + formatFloat(s.Time.Seconds()),
		"--speed=" + formatFloat(s.Speed),
		"--pause=" + formatFloat(s.Pause.Seconds()),
		"--flows=" + strconv.Itoa(s.Flows),
		"--pcap=" + pcap,
		"--prefix=" + s.Prefix(r),
	}
	if s.Preset != "" {
		args = append(args, "--preset="+s.Preset)
	}
	if s.StartMin != 0 || s.StartMax != 0 {
		args = append(args, "--startMin="+formatFloat(s.StartMin.Seconds()),
			"--startMax="+formatFloat(s.StartMax.Seconds()))
	}
	if s.CBRRate != "" {
		args = append(args, "--cbrRate="+s.CBRRate)
	}
	if s.PktSize != 0 {
		args = append(args, "--pktSize="+strconv.Itoa(s.PktSize))
	}
	return append(args, s.Extra...)
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
