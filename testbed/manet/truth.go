package manet

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// FlowTruth is the part of one ground-truth row that the campaign reports.
// The CSV itself has more columns (see shared/ns3/README.md).
type FlowTruth struct {
	Run         int
	Protocol    string
	Transport   string
	FlowID      int
	SrcNode     int
	DstNode     int
	StartS      float64 // application start, simulation seconds
	SinkRxBytes int64   // PacketSink total
	GoodputKbps float64
	TCPRetxSegs int64 // 0 for UDP
}

// ReadGroundTruth reads a <prefix>-groundtruth.csv (or groundtruth-all.csv).
func ReadGroundTruth(path string) ([]FlowTruth, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read ground truth: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read ground truth %s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("read ground truth %s: empty file", path)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"run", "protocol", "transport", "flow_id", "src_node", "dst_node",
		"start_s", "sink_rx_bytes", "goodput_kbps", "tcp_retx_segs"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("read ground truth %s: no column %q", path, h)
		}
	}
	var out []FlowTruth
	for n, r := range rows[1:] {
		var ft FlowTruth
		var errs []error
		atoi := func(name string) int64 {
			v, err := strconv.ParseInt(r[col[name]], 10, 64)
			if err != nil {
				errs = append(errs, err)
			}
			return v
		}
		atof := func(name string) float64 {
			v, err := strconv.ParseFloat(r[col[name]], 64)
			if err != nil {
				errs = append(errs, err)
			}
			return v
		}
		ft.Run = int(atoi("run"))
		ft.Protocol = r[col["protocol"]]
		ft.Transport = r[col["transport"]]
		ft.FlowID = int(atoi("flow_id"))
		ft.SrcNode = int(atoi("src_node"))
		ft.DstNode = int(atoi("dst_node"))
		ft.StartS = atof("start_s")
		ft.SinkRxBytes = atoi("sink_rx_bytes")
		ft.GoodputKbps = atof("goodput_kbps")
		ft.TCPRetxSegs = atoi("tcp_retx_segs")
		if len(errs) > 0 {
			return nil, fmt.Errorf("read ground truth %s: row %d: %w", path, n+2, errs[0])
		}
		out = append(out, ft)
	}
	return out, nil
}

// RunConfig is a parsed <prefix>-config.txt.
type RunConfig struct {
	Values    map[string]string // key=value lines, last one wins
	Flows     []string          // flowN=... lines in order, "flowN=" included
	PcapFiles []string          // pcap_file values in order (names before gzip)
}

// Fingerprint returns the mobility fingerprint: equal for every protocol of
// one realisation.
func (c RunConfig) Fingerprint() string { return c.Values["mobility_fingerprint"] }

// ReadConfig reads a <prefix>-config.txt.
func ReadConfig(path string) (RunConfig, error) {
	f, err := os.Open(path)
	if err != nil {
		return RunConfig{}, fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	return parseConfig(f)
}

func parseConfig(r io.Reader) (RunConfig, error) {
	c := RunConfig{Values: map[string]string{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch {
		case k == "pcap_file":
			c.PcapFiles = append(c.PcapFiles, v)
		case strings.HasPrefix(k, "flow") && k != "flows":
			c.Flows = append(c.Flows, k+"="+v)
		}
		c.Values[k] = v
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("read config: %w", err)
	}
	return c, nil
}
