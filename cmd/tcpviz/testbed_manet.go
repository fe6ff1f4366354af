package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tcpviz/tcpviz/testbed/manet"
)

// newTestbedManet builds `tcpviz testbed manet`: build the ns-3 scenario
// once and run a protocols × seeds campaign.
func newTestbedManet(e *env) *cobra.Command {
	def := manet.DefaultScenario()
	var (
		protocols, seeds, area string
		simTime, pause         string
		out, cacheDir, cxx     string
		transport              string
		nodes, flows, jobs     int
		speed                  float64
		gz, noPcap, buildOnly  bool
		verbose                bool
		ns3Args                []string
		preset, shard          string
		resume, dryRun         bool
		ns3Dir, hookFile       string
		ns3Modules             []string
		startWin, cbrRate      string
		pktSize                int
	)
	c := &cobra.Command{
		Use:     "manet --protocols anthocnet,aodv,olsr,dsdv --seeds 1-5 --out DIR",
		Short:   "run the ns-3 MANET TCP scenario (AntHocNet/AODV/OLSR/DSDV) and collect pcaps + ground truth",
		Long:    help("manet.txt"),
		Example: help("manet.examples.txt"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A wrong knob is a usage error (exit 1), as for every verb's options.
			k := manet.Knobs{Preset: preset, Transport: transport, Nodes: nodes, Flows: flows, Speed: speed, Area: area, Time: simTime, Pause: pause,
				Start: startWin, CBRRate: cbrRate, PktSize: pktSize, NoPcap: noPcap, Extra: ns3Args,
				Protocols: protocols, Seeds: seeds, Shard: shard, HookProtocols: hookFile != ""}
			camp, err := k.Campaign(cmd.Flags().Changed)
			var ke *manet.KnobError
			if errors.As(err, &ke) {
				return fmt.Errorf("--%s: %w", ke.Knob, ke.Err)
			} else if err != nil {
				return err
			}
			camp.Resume = resume
			if dryRun {
				// The runs' command lines (before --campaignKey), nothing built.
				for _, r := range camp.Runs() {
					fmt.Fprintln(e.stdout, "manet-tcp "+strings.Join(camp.Scenario.Args(r), " "))
				}
				return nil
			}
			if out == "" && !buildOnly {
				return errors.New("--out DIR is required")
			}

			interactive := false
			if f, ok := e.stderr.(*os.File); ok {
				interactive = term.IsTerminal(int(f.Fd()))
			}
			logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }
			bopts := manet.BuildOptions{CacheDir: cacheDir, CXX: cxx, NS3Dir: ns3Dir, ExtraModules: ns3Modules, HookFile: hookFile}
			if interactive || verbose {
				bopts.Logf = logf
			}
			bin, err := manet.Build(e.ctx, bopts)
			if err != nil {
				return err
			}
			if buildOnly {
				fmt.Fprintln(e.stdout, bin)
				return nil
			}

			camp.OutDir, camp.Binary, camp.Jobs, camp.Gzip = out, bin, jobs, gz
			if interactive && !verbose {
				camp.Progress = e.stderr
			} else {
				camp.Logf = logf
			}
			res, err := camp.Execute(e.ctx)
			if res != nil {
				res.WriteSummary(e.stdout, e.stderr)
			}
			if err != nil {
				var ce *manet.CampaignError
				if errors.As(err, &ce) {
					return &exitError{code: 3, err: err}
				}
				return err
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&protocols, "protocols", "aodv,olsr,dsdv", "routing protocols, comma-separated (anthocnet, aodv, olsr, dsdv, hook names) or all")
	f.StringVar(&preset, "preset", "", "start from a named scenario: paper-base (the study's TCP arm) or paper-base-udp (its UDP CBR control); other flags override it")
	f.BoolVar(&dryRun, "dry-run", false, "print each run's scenario command line and exit (nothing is built or run)")
	f.BoolVar(&resume, "resume", true, "skip runs already complete in --out with the same knobs (a killed run is redone)")
	f.StringVar(&shard, "shard", "", "run only part i of n of the seeds (i/n, 1-based; all protocols of a seed stay together), e.g. a CI matrix or Slurm array task")
	f.StringVar(&ns3Dir, "ns3-dir", "", "build against this ns-3 tree (CMake build tree or install prefix) instead of the system's")
	f.StringArrayVar(&ns3Modules, "ns3-module", nil, "extra ns-3 module to link, e.g. a routing module of --ns3-dir (repeatable)")
	f.StringVar(&hookFile, "routing-hook", "", "C++ file defining TcpvizRoutingHook for protocol names tcpviz does not know (docs/testbed-manet.md)")
	f.StringVar(&startWin, "start", "", "flow start window MIN,MAX (e.g. 0,180s; default 10,20s)")
	f.StringVar(&cbrRate, "cbr-rate", "", "UDP CBR rate per flow, ns-3 DataRate syntax (default 100kbps; paper-base-udp: 512bps)")
	f.IntVar(&pktSize, "pkt-size", 0, "UDP CBR packet size, bytes (default 1000; paper-base-udp: 64)")
	f.StringVar(&seeds, "seeds", "1", `realisations (ns-3 run numbers), e.g. "1-5,8"`)
	f.IntVar(&nodes, "nodes", def.Nodes, "number of nodes")
	f.StringVar(&simTime, "time", "100s", "simulated time (e.g. 100s, 15)")
	f.StringVar(&out, "out", "", "output directory (files are written flat into it)")
	f.IntVar(&flows, "flows", def.Flows, "number of flows")
	f.StringVar(&area, "area", "1000x300", "area WIDTHxHEIGHT in metres")
	f.Float64Var(&speed, "speed", def.Speed, "RandomWaypoint maximum speed, m/s (speed ~ U[0, max])")
	f.StringVar(&pause, "pause", "30s", "RandomWaypoint pause (e.g. 30s, 30)")
	f.StringVar(&transport, "transport", def.Transport, "tcp (BulkSend, TcpCubic) or udp (100 kbps CBR control)")
	f.IntVar(&jobs, "jobs", runtime.NumCPU(), "simulations in parallel")
	f.BoolVar(&gz, "gzip", false, "gzip the pcaps (<name>.pcap.gz, ~6x smaller)")
	f.BoolVar(&noPcap, "no-pcap", false, "write ground truth only, no pcaps")
	f.StringArrayVar(&ns3Args, "ns3-arg", nil, "extra argument for the scenario, repeatable (e.g. --ns3-arg=--ns3::TcpSocket::ConnCount=20)")
	f.StringVar(&cacheDir, "cache-dir", "", "where the compiled scenario is cached (default $TCPVIZ_CACHE_DIR or $XDG_CACHE_HOME/tcpviz)")
	f.StringVar(&cxx, "cxx", "", "C++ compiler (default $CXX or g++)")
	f.BoolVar(&buildOnly, "build-only", false, "compile (or find) the scenario binary, print its path and exit")
	f.BoolVarP(&verbose, "verbose", "v", false, "log compilation and every finished run to stderr")
	return c
}
