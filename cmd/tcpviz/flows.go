package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/export"
)

func newFlowsCmd(e *env) *cobra.Command {
	var af analysisFlags
	var asJSON, asCSV bool
	var out string
	c := &cobra.Command{
		Use:   "flows FILE...",
		Short: "list every TCP connection with per-direction packets, bytes, retransmitted bytes and goodput",
		Long: `flows lists the TCP connections of each capture, like 'tshark -q -z conv,tcp',
plus unique and retransmitted bytes, goodput, handshake and window scale.
Side a is the side that sent the SYN (or the first packet when no SYN was
captured). Columns and units are documented in docs/schema.md; every metric in
docs/metrics.md. FILE may be pcap or pcapng, gzip- or zstd-compressed, or - for
standard input.`,
		Example: `  tcpviz flows run.pcap
  tcpviz flows --csv -o flows.csv campaign/*.pcap.gz`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asCSV {
				return fmt.Errorf("choose one of --json and --csv")
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
			if !asJSON {
				// CSV and table: rows streamed as connections end.
				stream := func(w io.Writer) error { return e.flowsStreamed(w, args, opts, asCSV) }
				if out != "" {
					return writeFileAtomic(out, func(f *os.File) error { return stream(f) })
				}
				return stream(e.stdout)
			}
			var files []export.FlowsFile
			for _, path := range args {
				rep, err := e.analyze(path, opts)
				if err != nil {
					return err
				}
				files = append(files, export.NewFlowsFile(path, rep, asJSON))
				pf := pepFlowNotes(path, rep, opts)
				files[len(files)-1].SetPEP(pf.notes, pf.dirs)
				// One note per file, however many connections lack a handshake.
				var unknown []int
				for _, r := range rep.Conns {
					if r.Conn.Half[0].WScale < 0 || r.Conn.Half[1].WScale < 0 {
						unknown = append(unknown, r.Conn.Index)
					}
				}
				wscaleNote(e.stderr, path, len(unknown), unknown[:min(len(unknown), maxConnNotes)])
			}
			write := func(w io.Writer) error {
				switch {
				case asJSON:
					enc := json.NewEncoder(w)
					enc.SetIndent("", "  ")
					return enc.Encode(map[string]any{"schema": export.FlowsSchema, "files": files})
				case asCSV:
					return export.WriteFlowsCSV(w, files)
				}
				return export.WriteFlowsTable(w, files)
			}
			if out != "" {
				return writeFileAtomic(out, func(f *os.File) error { return write(f) })
			}
			return write(e.stdout)
		},
	}
	af.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "write JSON (schema "+export.FlowsSchema+")")
	c.Flags().BoolVar(&asCSV, "csv", false, "write CSV (schema "+export.FlowsSchema+")")
	c.Flags().StringVarP(&out, "output", "o", "", "write to this file (atomically) instead of standard output")
	return c
}
