package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tcpviz/tcpviz"
)

// demoFigures writes, next to the Stevens graphs, one figure of each other
// kind (RTT, throughput, window of the satellite testbed's PEP run; the
// compare figure without and with the PEP) and the MANET study's goodput
// rows, tables (Markdown, CSV, LaTeX) and figures from testdata/manet, by
// running the verbs themselves.
func (e *env) demoFigures(out string) error {
	tmp, err := os.MkdirTemp("", "tcpviz-demo-figs-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The satellite captures keep their run directory: it names the run
	// in the titles.
	sat := func(run string) (string, error) {
		dst := filepath.Join(tmp, run, "client.pcap")
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		return dst, tcpviz.WriteDemoFile("testdata/sat/"+run+"/client.pcap", dst)
	}
	pep, err := sat("pep-on_window-20KB")
	if err != nil {
		return err
	}
	nopep, err := sat("pep-off_window-20KB")
	if err != nil {
		return err
	}
	manet := filepath.Join(tmp, "manet")
	if err := os.MkdirAll(manet, 0o755); err != nil {
		return err
	}
	// The per-run ground truths, joined into one file for --starts.
	gt, err := tcpviz.WriteDemoManet(manet)
	if err != nil {
		return err
	}
	starts := filepath.Join(tmp, "groundtruth-all.csv")
	if err := os.WriteFile(starts, gt, 0o644); err != nil {
		return err
	}
	// The rows name the shipped captures (testdata/manet/…), not the
	// copies in tmp, which are gone when demo ends.
	shown := func(p string) string {
		if rel, err := filepath.Rel(tmp, p); err == nil && !strings.HasPrefix(rel, "..") {
			if strings.HasPrefix(rel, "manet") {
				return filepath.ToSlash(filepath.Join("testdata", rel))
			}
			return filepath.ToSlash(filepath.Join("testdata", "sat", rel))
		}
		return p
	}
	o := func(name string) string { return filepath.Join(out, name) }
	runs := [][]string{
		{"rtt", pep, "-o", o("sat_pep-on_window-20KB.rtt.png")},
		{"tput", pep, "-o", o("sat_pep-on_window-20KB.tput.png")},
		{"window", nopep, "-o", o("sat_pep-off_window-20KB.window.png")},
		{"compare", "no PEP=" + nopep, "PEP=" + pep, "-o", o("sat_compare-pep.seq.png")},
		{"goodput", manet, "--labels", "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap", "--group", "protocol", "--pair", "seed",
			"--end", "30", "--starts", starts, "--starts-rename", "run=seed", "--label", "testdata/manet",
			"--csv", "-o", o("manet.goodput.csv"), "--tables", o("manet.tables.md"), "--tables-csv", o("manet"),
			"--tables-tex", o("manet.tables.tex"), "--plot", o("manet.goodput.png")},
	}
	for _, args := range runs {
		// A fresh root per verb: its flags start from their defaults.
		// Their tables stay quiet; the paths they wrote are printed.
		var msgs, paths bytes.Buffer
		sub := &env{ctx: e.ctx, stdout: &paths, stderr: &msgs, stdin: e.stdin, shownPath: shown}
		root := newRoot(sub)
		root.SetArgs(args)
		if err := root.ExecuteContext(e.ctx); err != nil {
			fmt.Fprint(e.stderr, msgs.String())
			return fmt.Errorf("demo %s: %w", args[0], err)
		}
		for _, l := range strings.Split(paths.String(), "\n") {
			if strings.HasPrefix(l, out) {
				fmt.Fprintln(e.stdout, l)
			}
		}
	}
	fmt.Fprintln(e.stdout, o("manet.goodput.csv"))
	fmt.Fprintln(e.stdout, o("manet.tables.md"))
	for _, s := range []string{".groups.csv", ".pairs.csv"} {
		fmt.Fprintln(e.stdout, o("manet"+s))
	}
	return nil
}
