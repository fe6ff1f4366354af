package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tcpviz/tcpviz"
)

// demoFigures runs the verbs of tcpviz.DemoVerbs (the RTT, throughput,
// window and compare figures of the satellite runs; the MANET study's
// goodput rows, tables and figures), each on a fresh root whose tables stay
// quiet, and prints the paths they wrote into out.
func (e *env) demoFigures(out string) error {
	dv, err := tcpviz.NewDemoVerbs(out)
	if err != nil {
		return err
	}
	defer dv.Close()
	for _, args := range dv.Args {
		var msgs, paths bytes.Buffer
		sub := &env{ctx: e.ctx, stdout: &paths, stderr: &msgs, stdin: e.stdin, shownPath: dv.Shown}
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
	for _, p := range dv.Also {
		fmt.Fprintln(e.stdout, p)
	}
	return nil
}
