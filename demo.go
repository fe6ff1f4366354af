// Package tcpviz is the root of the tcpviz module. It only embeds the
// captures the project ships in testdata/, which 'tcpviz demo' analyses;
// the tool itself lives in cmd/tcpviz and the library in capture, flows,
// tcpanalysis and plot.
package tcpviz

import "embed"

// DemoFS holds the project's own captures: the synthetic 600 ms-RTT
// transfer (testdata/synthetic, written by internal/pcaptest/cmd/gensynth),
// the satellite testbed's client captures with and without a PEP
// (testdata/sat) and a small ns-3 MANET campaign (testdata/manet).
//
//go:embed testdata/synthetic/*.pcap testdata/sat/*/client.* testdata/manet/*.pcap.gz testdata/manet/*-groundtruth.csv
var DemoFS embed.FS
