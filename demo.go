// Package tcpviz is the root of the tcpviz module. It embeds the captures
// the project ships in testdata/ and runs what 'tcpviz demo' does with
// them (DemoConnections, DemoVerbs); the tool itself lives in cmd/tcpviz
// and the library in capture, flows, tcpanalysis, query, figures and plot.
package tcpviz

import (
	"bytes"
	"embed"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// DemoFS holds the project's own captures: the synthetic 600 ms-RTT
// transfer (testdata/synthetic, written by internal/pcaptest/cmd/gensynth),
// the satellite testbed's client captures with and without a PEP
// (testdata/sat) and a small ns-3 MANET campaign (testdata/manet).
//
//go:embed testdata/synthetic/*.pcap testdata/sat/*/client.* testdata/manet/*.pcap.gz testdata/manet/*-groundtruth.csv
var DemoFS embed.FS

// DemoCaptures lists the captures in DemoFS (testdata/…/*.pcap and
// *.pcap.gz), sorted.
func DemoCaptures() ([]string, error) {
	var names []string
	err := fs.WalkDir(DemoFS, "testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".pcap.gz")) {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

// WriteDemoFile writes the embedded file name (a path in DemoFS) to dst,
// so that a reader can map it.
func WriteDemoFile(name, dst string) error {
	b, err := DemoFS.ReadFile(name)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// WriteDemoManet writes the MANET campaign's captures of DemoFS into dir
// (flat, as ns-3 names them) and returns its per-run ground truths joined
// into one CSV (one header), as ns-3's groundtruth-all.csv holds them.
func WriteDemoManet(dir string) ([]byte, error) {
	var gt bytes.Buffer
	err := fs.WalkDir(DemoFS, "testdata/manet", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(p, ".pcap.gz") {
			return WriteDemoFile(p, filepath.Join(dir, path.Base(p)))
		}
		if strings.HasSuffix(p, "-groundtruth.csv") {
			b, err := DemoFS.ReadFile(p)
			if err != nil {
				return err
			}
			if gt.Len() > 0 {
				_, b, _ = bytes.Cut(b, []byte("\n")) // one header
			}
			gt.Write(b)
		}
		return nil
	})
	return gt.Bytes(), err
}
