package manet

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"
)

//go:embed scenario/manet-tcp.cc
var scenarioSource []byte

// Source returns the embedded C++ source of the ns-3 scenario.
func Source() []byte { return append([]byte(nil), scenarioSource...) }

// Protocols lists the routing protocols the scenario supports, in the order
// the campaign runs them.
var Protocols = []string{"aodv", "olsr", "dsdv"}

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
	case s.Speed < 0:
		return fmt.Errorf("speed %g: want >= 0", s.Speed)
	case s.Pause < 0:
		return fmt.Errorf("pause %v: want >= 0", s.Pause)
	}
	return nil
}

// Run names one simulation of a campaign: a routing protocol at a
// realisation. All protocols of one Seed share mobility and flow table.
type Run struct {
	Protocol string // "aodv", "olsr" or "dsdv"
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
	return append(args, s.Extra...)
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
