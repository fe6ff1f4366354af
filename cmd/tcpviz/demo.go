package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz"
)

func newDemoCmd(e *env) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "demo",
		Short: "analyse the captures shipped with tcpviz and write every plot into a folder",
		Long:  help("demo.txt"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(e, out)
		},
	}
	c.Flags().StringVarP(&out, "out", "o", "tcpviz-demo", "output folder")
	return c
}

// runDemo writes demo's outputs into out (package tcpviz: DemoConnections,
// DemoVerbs) and prints every path written.
func runDemo(e *env, out string) error {
	caps, cleanup, err := tcpviz.DemoConnections(out, func(p string) { fmt.Fprintln(e.stdout, p) })
	if err != nil {
		return err
	}
	defer cleanup()
	// The other figures and the study's tables, then the reports, whose
	// last line says what to open first.
	if err := e.demoFigures(out); err != nil {
		return err
	}
	var dc []demoCapture
	for _, c := range caps {
		dc = append(dc, demoCapture{name: c.Name, path: c.Path})
	}
	return e.demoReports(out, dc)
}
