package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/report"
)

func newFlowsCmd(e *env) *cobra.Command {
	var af analysisFlags
	var asJSON, asCSV bool
	var out, host string
	var port int
	var pathRTT time.Duration
	c := &cobra.Command{
		Use:     "flows FILE...",
		Short:   "list every TCP connection with per-direction packets, bytes, retransmitted bytes and goodput",
		Long:    help("flows.txt"),
		Example: help("flows.examples.txt"),
		Args:    named(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asCSV {
				return fmt.Errorf("choose one of --json and --csv")
			}
			if err := formatAgrees(out, asCSV, asJSON); err != nil {
				return err
			}
			// -o chooses the format by its extension unless a flag did.
			if out != "" && !asJSON && !asCSV {
				switch strings.ToLower(filepath.Ext(out)) {
				case ".csv":
					asCSV = true
				case ".json":
					asJSON = true
				case ".txt", ".md", "":
				default:
					return fmt.Errorf("-o %s: unknown format; use .csv, .json or .txt", out)
				}
			}
			opts, err := af.options()
			if err != nil {
				return err
			}
			// Rows streamed as connections end (flows_stream.go).
			format := export.FlowsTable
			switch {
			case asCSV:
				format = export.FlowsCSV
			case asJSON:
				format = export.FlowsJSON
			}
			sel := query.All()
			sel.Port = uint16(port)
			if sel.Host, err = query.ParseHost(host); err != nil {
				return fmt.Errorf("--host: %w", err)
			}
			stream := func(w io.Writer) error { return e.flowsStreamed(w, args, opts, format, sel, pathRTT) }
			if format == export.FlowsTable && isMarkdown(out) {
				table := stream
				stream = func(w io.Writer) error { return fenced(w, table) }
			}
			// A partial result (some of several captures could not be
			// read: report.ReadError) is written, -o too, and then
			// reported (exit 3); nothing read (exit 2) writes no -o.
			var partial error
			streamed := stream
			stream = func(w io.Writer) error {
				err := streamed(w)
				if re := (*report.ReadError)(nil); errors.As(err, &re) && re.Partial() {
					partial, err = err, nil
				}
				return err
			}
			if out != "" {
				if err := writeFileAtomic(out, func(f *os.File) error { return stream(f) }); err != nil {
					return reportErr(err)
				}
				return reportErr(partial)
			}
			if err := stream(e.stdout); err != nil {
				return reportErr(err)
			}
			return reportErr(partial)
		},
	}
	af.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "write JSON (schema "+export.FlowsSchema+")")
	c.Flags().BoolVar(&asCSV, "csv", false, "write CSV (schema "+export.FlowsSchema+")")
	c.Flags().StringVarP(&out, "output", "o", "", "write to this file (atomically) instead of standard output")
	c.Flags().IntVar(&port, "port", 0, "only connections with this port on either side (their indexes stay the capture's)")
	c.Flags().StringVar(&host, "host", "", "only connections with this address on either side (their indexes stay the capture's)")
	c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known (e.g. 600ms): evidence for or against a split-TCP PEP behind every connection's goodput (docs/metrics.md#pep)")
	return c
}

// isMarkdown reports that the -o file ends in .md.
func isMarkdown(out string) bool { return strings.EqualFold(filepath.Ext(out), ".md") }

// fenced writes body's aligned text table as a Markdown document: inside a
// fenced code block, so that it renders with its columns aligned (an
// aligned table is not Markdown's pipe table).
func fenced(w io.Writer, body func(io.Writer) error) error {
	if _, err := io.WriteString(w, "```text\n"); err != nil {
		return err
	}
	if err := body(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "```\n")
	return err
}
