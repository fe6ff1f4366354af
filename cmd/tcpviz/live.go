package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/capture/live"
	"github.com/tcpviz/tcpviz/monitor"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
	"golang.org/x/term"
)

// liveFlags are the flags live.go adds to flows, rtt, retrans and tput.
type liveFlags struct {
	iface     string
	filter    string
	every     time.Duration
	duration  time.Duration
	count     int64
	write     string
	noPromisc bool
}

// liveHonours are the flags a live run uses; others (-o, --json, --pep, …)
// are refused with -i.
var liveHonours = map[string]bool{
	"interface": true, "filter": true, "duration": true, "count": true, "write": true, "no-promisc": true,
	"every": true, "csv": true, "method": true, "interval": true, "conn": true, "port": true, "host": true,
	"dir": true, "wscale": true, "no-fold": true,
}

// liveVerbs are the verbs that take -i.
var liveVerbs = map[string]bool{"flows": true, "rtt": true, "retrans": true, "tput": true}

// addLiveFlags gives the live verbs -i, --filter, --duration, -c, -w (and
// --every for flows) and routes a run with -i to runLive. Without -i,
// --filter applies to the files the verb reads.
func addLiveFlags(e *env, root *cobra.Command) {
	for _, c := range root.Commands() {
		name := c.Name()
		if !liveVerbs[name] {
			continue
		}
		lf := &liveFlags{}
		fl := c.Flags()
		fl.StringVarP(&lf.iface, "interface", "i", "", "capture live on this interface instead of reading FILE (needs root or CAP_NET_RAW)")
		fl.StringVar(&lf.filter, "filter", "", "capture filter, a pcap-filter(7) expression such as 'tcp port 5201': applied to live captures and files alike")
		fl.DurationVar(&lf.duration, "duration", 0, "with -i: stop after this long (e.g. 30s); default: at Ctrl-C")
		fl.Int64VarP(&lf.count, "count", "c", 0, "with -i: stop after this many frames (those that passed --filter)")
		fl.StringVarP(&lf.write, "write", "w", "", "with -i: also write every frame analysed to this pcapng file")
		fl.BoolVar(&lf.noPromisc, "no-promisc", false, "with -i: do not put the interface into promiscuous mode")
		if name == "flows" {
			fl.DurationVar(&lf.every, "every", time.Second, "with -i: refresh the table this often")
		}
		c.Long += "\n\n" + liveHelp(name)
		c.Example = strings.TrimRight(c.Example, "\n") + "\n" + liveExample(name)
		args, run := c.Args, c.RunE
		c.Args = func(cmd *cobra.Command, a []string) error {
			if lf.iface != "" {
				if len(a) > 0 {
					return fmt.Errorf("-i %s captures live: give no FILE (got %q)", lf.iface, a[0])
				}
				return nil
			}
			if args != nil {
				return args(cmd, a)
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, a []string) error {
			if lf.filter != "" {
				// A filter this build cannot compile is a usage error, found
				// before any capture is opened (trial13 B7).
				if _, err := live.NewFileFilter(lf.filter, nil); err != nil {
					return fmt.Errorf("--filter: %w", err)
				}
			}
			if lf.iface == "" {
				for _, f := range []string{"duration", "count", "write", "every", "no-promisc"} {
					if cmd.Flags().Changed(f) {
						return fmt.Errorf("--%s needs -i IFACE (a live capture)", f)
					}
				}
				e.filter = lf.filter
				defer func() { e.filter = "" }()
				return run(cmd, a)
			}
			return e.runLive(cmd, name, lf)
		}
	}
}

// fileFilterVerbs read files only but take --filter as the live verbs do
// for files (their help's time columns promise it).
var fileFilterVerbs = map[string]bool{"seq": true, "window": true}

// addFileFilter gives fileFilterVerbs --filter: a pcap-filter(7)
// expression applied to the files the verb reads, frame numbers and the
// time origin kept (monitor.AnalyzeFile).
func addFileFilter(e *env, root *cobra.Command) {
	for _, c := range root.Commands() {
		if !fileFilterVerbs[c.Name()] {
			continue
		}
		var filter string
		c.Flags().StringVar(&filter, "filter", "", "a pcap-filter(7) expression such as 'tcp port 5201': only the frames it passes are analysed (frame numbers and times stay the file's)")
		run := c.RunE
		c.RunE = func(cmd *cobra.Command, a []string) error {
			if filter != "" {
				if _, err := live.NewFileFilter(filter, nil); err != nil {
					return fmt.Errorf("--filter: %w", err)
				}
			}
			e.filter = filter
			defer func() { e.filter = "" }()
			return run(cmd, a)
		}
	}
}

func liveHelp(verb string) string {
	what := map[string]string{
		"flows":   "the connection table is printed again every --every (cleared first on a\nterminal); a connection that is over is printed once more as it is released\n(with --csv: one CSV row then)",
		"rtt":     "one line per RTT sample as it is measured, like pping: time, connection,\ndata direction, method, RTT and endpoints (with --csv: the rows of\n'rtt --csv FILE')",
		"retrans": "one line per classified event as it happens (with --csv: the rows of\n'retrans --csv FILE'); a retransmission that a later D-SACK or echoed\ntimestamp shows spurious is printed again, class spurious: that line\nreplaces the first",
		"tput":    "one row per --interval (default 1s) and active connection direction:\nthroughput and goodput in kbit/s and cumulative acknowledged bytes (with\n--csv: CSV rows)",
	}[verb]
	return help("live.txt", "{what}", what, "{verb}", verb, "{finished}", monitor.FinishedIdle.String(), "{abandoned}", monitor.AbandonedIdle.String(), "{backend}", live.Backend, "{filter}", live.FilterCompiler)
}

func liveExample(verb string) string {
	switch verb {
	case "rtt":
		return "  sudo tcpviz rtt -i eth0 --filter 'tcp port 5201'\n  sudo tcpviz rtt -i eth0 --duration 30s -w run.pcapng --csv > rtt.csv"
	case "flows":
		return "  sudo tcpviz flows -i eth0 --every 2s\n  tcpviz flows --filter 'host 10.0.0.2 and tcp port 80' run.pcap"
	}
	return "  sudo tcpviz " + verb + " -i eth0 --filter 'tcp port 5201' -c 100000"
}

// analyzeFiltered analyses the capture at path, through the --filter
// expression if one was given (monitor.AnalyzeFile); a filter error is
// bad input, exit status 2.
func (e *env) analyzeFiltered(path string, opts tcpanalysis.Options) (*tcpanalysis.Report, error) {
	rep, err := monitor.AnalyzeFile(path, e.filter, opts)
	if errors.Is(err, live.ErrFilter) {
		return nil, &exitError{code: 2, err: err}
	}
	return rep, err
}

// runLive runs verb on a live capture described by lf (package monitor).
func (e *env) runLive(cmd *cobra.Command, verb string, lf *liveFlags) error {
	fl := cmd.Flags()
	str := func(name string) string {
		if f := fl.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	var unsupported []string
	fl.Visit(func(f *pflag.Flag) {
		if !liveHonours[f.Name] {
			unsupported = append(unsupported, "--"+f.Name)
		}
	})
	if len(unsupported) > 0 {
		return fmt.Errorf("%s not available with -i: use -w FILE to keep the capture, then run 'tcpviz %s' on FILE with them", strings.Join(unsupported, ", "), verb)
	}
	v, err := monitor.ParseVerb(verb)
	if err != nil {
		return err
	}
	// The verb's own flags, read by name: the same checks and vocabulary
	// as for a file (selFlags.selection).
	af := analysisFlags{noFold: str("no-fold") == "true"}
	af.wscale, _ = fl.GetInt("wscale")
	opts, err := af.options()
	if err != nil {
		return err
	}
	sf := selFlags{conn: -1, host: str("host"), dir: str("dir"), ref: "syn"}
	if v, err := fl.GetInt("conn"); err == nil {
		sf.conn = v
	}
	sf.port, _ = fl.GetInt("port")
	sel, err := sf.selection()
	if err != nil {
		return err
	}
	tty := false
	if f, ok := e.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tty = true
	}
	iv, _ := time.ParseDuration(str("interval"))
	if v == monitor.Flows {
		// A PEP verdict needs what a live table cannot have: the
		// connection's detail and a second read of the capture (its link
		// layer, pep.Recheck). Say so, and how to get it, rather than
		// leave the columns looking judged.
		fmt.Fprintln(e.stderr, "note: live flows do not judge whether a split-TCP PEP acknowledged the data (that takes a second read of the capture): acks_from_pep and pep_possible stay false and no goodput is marked PEP or PEP?; keep the capture with -w FILE and run 'tcpviz flows FILE' (with --path-rtt if known) for the PEP marks and notes (docs/metrics.md#pep)")
	}
	_, err = monitor.Live(e.ctx, live.Options{Iface: lf.iface, Filter: lf.filter, Count: lf.count, Duration: lf.duration, Write: lf.write, NoPromisc: lf.noPromisc},
		monitor.Config{Verb: v, Analysis: opts, Select: sel, CSV: str("csv") == "true",
			Method: str("method"), Interval: iv, Every: lf.every, Iface: lf.iface, TTY: tty, Stdout: e.stdout, Stderr: e.stderr})
	if errors.Is(err, query.ErrMethod) { // checked before the capture opens
		return fmt.Errorf("--method %q: want ack, ts or both", str("method"))
	}
	var oe *monitor.OpenError
	var fe *capture.FrameError
	if errors.As(err, &oe) && (errors.Is(err, live.ErrFilter) || errors.As(err, &fe)) {
		return &exitError{code: 2, err: err}
	}
	return err
}
