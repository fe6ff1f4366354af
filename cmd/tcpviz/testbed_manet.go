package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"text/tabwriter"

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
	)
	c := &cobra.Command{
		Use:   "manet --protocols aodv,olsr,dsdv --seeds 1-5 --out DIR",
		Short: "run the ns-3 MANET TCP scenario (AODV/OLSR/DSDV) and collect pcaps + ground truth",
		Long: `manet compiles tcpviz's embedded ns-3 3.37 scenario once (cached under
$TCPVIZ_CACHE_DIR or $XDG_CACHE_HOME/tcpviz; needs g++ and the Debian packages
ns3 libns3-dev) and runs every protocol at every seed, in parallel. Each run
writes, flat into --out, the radiotap pcaps of its flow sources and sinks and
its ground truth, named like shared/ns3:

  <transport>-<protocol>-r<seed>-<node>-<dev>.pcap[.gz]
  <transport>-<protocol>-r<seed>-{groundtruth,goodput-ts,tcp-events}.csv
  <transport>-<protocol>-r<seed>-{config,stdout}.txt

plus groundtruth-all.csv and runtimes.csv. All protocols of one seed share
mobility and flow table. Flows start at U[10,20] s (U[T/4,T/2] when the
simulated time T is under 40 s) and run to the end. Exit status 3 if any run
failed; Ctrl-C kills the running simulations.`,
		Example: `  tcpviz testbed manet --protocols aodv,olsr,dsdv --seeds 1-5 --nodes 20 --time 100s --out runs/
  tcpviz testbed manet --protocols all --seeds 1 --nodes 8 --area 300x300 --time 15s --flows 2 --gzip --out tiny/
  tcpviz testbed manet --seeds 1 --out runs/ --ns3-arg=--ns3::TcpSocket::ConnCount=20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bad := func(err error) error { return &exitError{code: 2, err: err} }
			sc := def
			sc.Transport = transport
			sc.Nodes, sc.Flows, sc.Speed = nodes, flows, speed
			sc.Pcap = !noPcap
			sc.Extra = ns3Args
			var err error
			if sc.AreaX, sc.AreaY, err = manet.ParseArea(area); err != nil {
				return bad(err)
			}
			if sc.Time, err = manet.ParseSeconds(simTime); err != nil {
				return bad(fmt.Errorf("--time: %w", err))
			}
			if sc.Pause, err = manet.ParseSeconds(pause); err != nil {
				return bad(fmt.Errorf("--pause: %w", err))
			}
			if err := sc.Validate(); err != nil {
				return bad(err)
			}
			protos, err := manet.ParseProtocols(protocols)
			if err != nil {
				return bad(err)
			}
			seedList, err := manet.ParseSeeds(seeds)
			if err != nil {
				return bad(err)
			}
			if out == "" && !buildOnly {
				return bad(errors.New("--out DIR is required"))
			}

			interactive := false
			if f, ok := e.stderr.(*os.File); ok {
				interactive = term.IsTerminal(int(f.Fd()))
			}
			logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }
			bopts := manet.BuildOptions{CacheDir: cacheDir, CXX: cxx}
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

			camp := &manet.Campaign{
				Scenario:  sc,
				Protocols: protos,
				Seeds:     seedList,
				OutDir:    out,
				Binary:    bin,
				Jobs:      jobs,
				Gzip:      gz,
			}
			if interactive {
				camp.Progress = e.stderr
			}
			if verbose {
				camp.Logf = logf
			}
			res, err := camp.Execute(e.ctx)
			if res != nil {
				printManetSummary(e, res)
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
	f.StringVar(&protocols, "protocols", "aodv,olsr,dsdv", "routing protocols, comma-separated (aodv, olsr, dsdv) or all")
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

// printManetSummary writes one line per flow of every successful run.
func printManetSummary(e *env, res *manet.Result) {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\twall_s\tflow\tsrc->dst\tsink_rx_bytes\tgoodput_kbps\ttcp_retx\t")
	for _, rr := range res.Runs {
		if rr.Err != nil {
			fmt.Fprintf(tw, "%s\t-\t-\tFAILED\t-\t-\t-\t\n", rr.Prefix)
			continue
		}
		for _, fl := range rr.Flows {
			fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d->%d\t%d\t%.1f\t%d\t\n", rr.Prefix, rr.Wall.Seconds(),
				fl.FlowID, fl.SrcNode, fl.DstNode, fl.SinkRxBytes, fl.GoodputKbps, fl.TCPRetxSegs)
		}
	}
	tw.Flush()
}
