package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/testbed/sat"
)

func newTestbedSat(e *env) *cobra.Command {
	cfg := sat.DefaultConfig()
	var (
		out, window, rate, loss, queue, lanRate, pepBuf string
		matrix                                          []string
		pep, cleanup, jsonOut                           bool
	)
	c := &cobra.Command{
		Use:     "sat [--matrix 'pep=on,off window=default,20KB'] [KEY=V1,V2 ...]",
		Short:   "satellite link (300 ms one way) with/without a split-TCP PEP: iperf3 upload, captures at client and server",
		Long:    help("sat.txt"),
		Example: help("sat.examples.txt"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := e.ctx
			if cleanup {
				names, err := sat.CleanupStale(ctx)
				fmt.Fprintf(e.stdout, "removed %d namespace(s) %v\n", len(names), names)
				return err
			}
			// The settings are checked first: a wrong value is a usage
			// error (exit 1), as for every verb's options.
			st := sat.Settings{PEP: pep, Window: window, Rate: rate, Loss: loss, Queue: queue, PEPBuf: pepBuf, LANRate: lanRate, Matrix: append(matrix, args...)}
			axes, err := st.Apply(&cfg)
			if err != nil {
				return err
			}
			if os.Geteuid() != 0 {
				return &exitError{2, errors.New("testbed sat needs root (network namespaces, AF_PACKET)")}
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			cfg.Helper = []string{exe, "testbed", "sat-helper"}
			logf := func(f string, a ...any) {
				fmt.Fprintf(e.stderr, time.Now().Format("15:04:05 ")+f+"\n", a...)
			}
			results, runErr := sat.RunMatrix(ctx, cfg, out, axes, logf)
			if jsonOut {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(results); err != nil {
					return err
				}
			} else if len(results) > 0 {
				sat.WriteResults(e.stdout, results)
			}
			if runErr != nil && len(results) > 0 {
				return &exitError{3, runErr}
			}
			return runErr
		},
	}
	f := c.Flags()
	f.StringVarP(&out, "out", "o", "sat-runs", "output directory; one subdirectory per run")
	f.BoolVar(&pep, "pep", false, "run the transparent split-TCP PEP in the router")
	f.StringVar(&cfg.CC, "cc", cfg.CC, "congestion control of the sender and the PEP: cubic, reno or bbr (iperf3 -C)")
	f.StringVar(&window, "window", "", "iperf3 -w socket buffer / window limit, e.g. 20KB; empty or 'default' keeps the defaults")
	f.DurationVar(&cfg.Duration, "duration", cfg.Duration, "iperf3 transfer time (-t, whole seconds)")
	f.DurationVar(&cfg.Sat.Delay, "delay", cfg.Sat.Delay, "satellite one-way delay (RTT is about twice this)")
	f.DurationVar(&cfg.Sat.Jitter, "jitter", 0, "satellite delay jitter (± uniform, no reordering)")
	f.StringVar(&rate, "rate", "10Mbit", "satellite rate in bit/s (k/M/G prefixes)")
	f.StringVar(&loss, "loss", "", "satellite random loss, fraction or percent (0.01 or 1%)")
	f.StringVar(&queue, "queue", "", "satellite queue limit in bytes (K/M suffix); default one BDP")
	f.DurationVar(&cfg.LAN.Delay, "lan-delay", cfg.LAN.Delay, "LAN (client–router) one-way delay")
	f.StringVar(&lanRate, "lan-rate", "100Mbit", "LAN rate in bit/s")
	f.StringVar(&pepBuf, "pep-buf", "", "force SO_RCVBUF/SO_SNDBUF on the PEP's sockets (bytes, K/M suffix); default autotuning")
	f.StringVar(&cfg.Emulator, "emulator", cfg.Emulator, "link emulation: auto (netem if present, else userspace), userspace or netem")
	f.IntVar(&cfg.Snaplen, "snaplen", cfg.Snaplen, "tcpdump snap length, bytes")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed for the emulators' loss and jitter")
	f.StringArrayVar(&matrix, "matrix", nil, "matrix axes, e.g. 'pep=on,off window=default,20KB' (repeatable)")
	f.BoolVar(&cleanup, "cleanup", false, "only delete namespaces left by killed runs ("+sat.NSPrefix+"*) and exit")
	f.BoolVar(&jsonOut, "json", false, "print results as JSON")
	return c
}

func newTestbedSatHelper(e *env) *cobra.Command {
	return &cobra.Command{
		Use:    "sat-helper ROLE JSON",
		Short:  "internal: link emulator (emu), PEP (pep) or offload switch (offload) inside a namespace",
		Hidden: true,
		Args:   named(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sat.Helper(e.ctx, args[0], args[1], e.stdout)
		},
	}
}
