package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// writeVerdict prints the PEP evidence for one connection and direction.
func writeVerdict(w io.Writer, label string, v pep.Verdict, given time.Duration) error {
	verdict := "no sign of a split-TCP PEP"
	if v.Likely {
		verdict = "a split-TCP PEP is likely between the sender and the receiver"
	}
	fmt.Fprintf(w, "\nPEP evidence%s (data %s; docs: pep package, docs/metrics.md#rtt): %s\n", label, v.Dir, verdict)
	rows := [][]string{{"criterion", "supports", "observed", "an end-to-end connection would show"}}
	for _, it := range v.Evidence {
		s := "no"
		if it.Supports {
			s = "YES"
		}
		rows = append(rows, []string{it.Name, s, it.Observed, it.Expected})
	}
	if err := export.WriteColumns(w, rows, false); err != nil {
		return err
	}
	if v.LocalRTT > 0 {
		fmt.Fprintf(w, "RTT from the capture point to the next TCP endpoint (the PEP if any): %s ms\n", export.FormatMS(v.LocalRTT))
	}
	switch {
	case v.FarRTT > 0 && v.FarRTT == given:
		fmt.Fprintf(w, "end-to-end RTT: %s ms (as given by --path-rtt)\n", export.FormatMS(v.FarRTT))
	case v.FarRTT > 0:
		fmt.Fprintf(w, "end-to-end RTT estimate: %s ms\n", export.FormatMS(v.FarRTT))
	}
	return nil
}

// pepOne runs single-capture PEP detection on the chosen connection.
func (e *env) pepOne(path string, r *tcpanalysis.ConnResult, d flows.Direction, pathRTT time.Duration) error {
	pk, err := pep.Evidence(path, r.Conn.Index)
	if err != nil {
		return inputError(err)
	}
	v := pep.DetectWith(r, d, pep.Options{PathRTT: pathRTT, Packets: pk})
	return writeVerdict(e.stdout, fmt.Sprintf(" for %s conn %d", path, r.Conn.Index), v, pathRTT)
}

// pepTwo matches the two halves of split connections in captures taken on
// each side of the PEP and reports the RTT of each half, the bytes held in
// the PEP and the end-to-end goodput.
func (e *env) pepTwo(clientPath, serverPath string, af *analysisFlags, out string) error {
	opts, err := af.options()
	if err != nil {
		return err
	}
	opts.Detail = true
	opts.Keep = func(int) bool { return true }
	// One pcapng with two interfaces: interface 0 is the client side and
	// interface 1 the server side.
	clOpts, svOpts := opts, opts
	if serverPath == clientPath {
		clOpts.Ifaces, svOpts.Ifaces = []int{0}, []int{1}
	}
	cl, err := e.analyze(clientPath, clOpts)
	if err != nil {
		return err
	}
	sv, err := e.analyze(serverPath, svOpts)
	if err != nil {
		return err
	}
	pairs := pep.MatchSplit(cl, sv)
	if len(pairs) == 0 {
		return fmt.Errorf("no connection of %s matches one of %s: are they the two sides of one PEP?", clientPath, serverPath)
	}
	rows := [][]string{{"client conn", "server conn", "dir", "split", "client↔PEP ms", "PEP↔server ms", "max held bytes", "delivered bytes", "end-to-end goodput kbit/s"}}
	results := pep.AnalyzeSplit(cl, sv, pairs)
	if out != "" {
		// The bytes held inside the PEP over time, per pair
		// (schema tcpviz.pep-held/1: client_conn, server_conn, t_s since
		// the client capture's first frame, held_bytes).
		if strings.ToLower(filepath.Ext(out)) != ".csv" {
			return fmt.Errorf("-o %s: the two-capture mode writes the held-bytes series as .csv", out)
		}
		err := writeFileAtomic(out, func(f *os.File) error {
			cw := csv.NewWriter(f)
			cw.Write([]string{"client_conn", "server_conn", "t_s", "held_bytes"})
			for _, r := range results {
				for _, h := range r.Held {
					cw.Write([]string{strconv.Itoa(r.Client), strconv.Itoa(r.Server), export.FormatSeconds(h.Time.Sub(cl.Start)), strconv.FormatInt(h.Bytes, 10)})
				}
			}
			cw.Flush()
			return cw.Error()
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, out)
	}
	for _, r := range results {
		split := "yes"
		if r.SameConn {
			split = "no (one connection)"
		}
		rows = append(rows, []string{strconv.Itoa(r.Client), strconv.Itoa(r.Server), r.Dir.String(), split,
			export.FormatMS(r.ClientPEPRTT), export.FormatMS(r.PEPServerRTT), strconv.FormatInt(r.MaxHeldBytes, 10), strconv.FormatInt(r.DeliveredBytes, 10),
			strconv.FormatFloat(r.GoodputKbps, 'f', 1, 64)})
	}
	fmt.Fprintf(e.stdout, "split connections: %s (client side) and %s (server side)\n", clientPath, serverPath)
	return export.WriteAligned(e.stdout, rows)
}
