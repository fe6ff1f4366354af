package export

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/campaign"
)

// TestGoodputCSVRoundTrip: what WriteGoodputCSV writes, ReadGoodputCSV
// reads back (the merge path of 'tcpviz stats').
func TestGoodputCSVRoundTrip(t *testing.T) {
	rows := []campaign.FlowRow{
		{File: "a/tcp-aodv-r1-6-0.pcap.gz", RunKey: "a/tcp-aodv-r1", Conn: 0, Src: "10.1.0.3", SPort: 49153, Dst: "10.1.0.7", DPort: 9001,
			FirstS: 8.258724, LastS: 29.995835, Bytes: 557480, Kbps: campaign.Kbps(557480, 21.737111), IntervalS: 21.737111, Vantage: campaign.AtReceiver, Captures: 4, Source: campaign.IntervalSource("groundtruth"), CaptureWarnings: 2,
			Labels: map[string]string{"protocol": "aodv", "seed": "1"}, Shard: campaign.Shard{I: 2, N: 3}},
		{File: "b/x.pcap", RunKey: "b", Conn: 3, Src: "::1", SPort: 1, Dst: "::2", DPort: 2, Bytes: 0, Vantage: campaign.AtSender, Captures: 1,
			Labels: map[string]string{"protocol": "olsr", "seed": "2"}},
	}
	var buf bytes.Buffer
	if err := WriteGoodputCSV(&buf, rows, []string{"protocol", "seed"}); err != nil {
		t.Fatal(err)
	}
	if h := strings.SplitN(buf.String(), "\n", 2)[0]; h != "file,conn,src,sport,dst,dport,first_s,last_s,bytes,goodput_kbps,protocol,seed,interval_s,run,vantage,captures,interval_from,capture_warnings,shard" {
		t.Errorf("header %s", h)
	}
	path := filepath.Join(t.TempDir(), "rows.csv")
	os.WriteFile(path, buf.Bytes(), 0o644)
	got, err := ReadGoodputCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, rows)
	}
	// A bad shard is an error naming the file and line.
	os.WriteFile(path, []byte(strings.Replace(buf.String(), ",2/3\n", ",3/2\n", 1)), 0o644)
	if _, err := ReadGoodputCSV(path); err == nil || !strings.Contains(err.Error(), `rows.csv: line 2: shard "3/2": want I/N with 1 ≤ I ≤ N`) {
		t.Errorf("bad shard: %v", err)
	}
	// Not a goodput CSV: the error names the file and the missing column.
	os.WriteFile(path, []byte("file,conn\nx,1\n"), 0o644)
	if _, err := ReadGoodputCSV(path); err == nil || !strings.Contains(err.Error(), "rows.csv") || !strings.Contains(err.Error(), `"src"`) {
		t.Errorf("flows CSV without columns: %v", err)
	}
}

// TestGoodputCSVExactRate: a rate read back from the CSV is the float the
// writer had, not its 3-decimal rounding (trial13 A7: stats printed 3574.8
// where goodput printed 3574.9), for an interval that is a difference of
// two capture times (no short decimal form): 203.6456621004566 kbit/s,
// where 557480 B over 21.9 s would be 203.64566210045663.
func TestGoodputCSVExactRate(t *testing.T) {
	a, b := 30.1, 8.2
	iv := a - b // 21.900000000000002 in float64: read at 6 decimals it would be 21.9, another float
	r := campaign.FlowRow{File: "x.pcap", RunKey: "x", Src: "10.1.0.3", SPort: 1, Dst: "10.1.0.7", DPort: 2,
		FirstS: 8.2, Bytes: 557480, IntervalS: iv, Kbps: campaign.Kbps(557480, iv), Vantage: campaign.AtReceiver, Captures: 1}
	var buf bytes.Buffer
	if err := WriteGoodputCSV(&buf, []campaign.FlowRow{r, r}, nil); err != nil {
		t.Fatal(err)
	}
	line := strings.Split(buf.String(), "\n")[1]
	if !strings.Contains(line, ",203.646,") || !strings.Contains(line, ",21.900000000000002,") {
		t.Errorf("row %q: want goodput_kbps 203.646 and interval_s 21.900000000000002", line)
	}
	path := filepath.Join(t.TempDir(), "rows.csv")
	os.WriteFile(path, buf.Bytes(), 0o644)
	got, src, err := ReadGoodputCSVSources(path)
	if err != nil || len(got) != 2 {
		t.Fatal(got, err)
	}
	if got[0].Kbps != r.Kbps || got[0].IntervalS != iv {
		t.Errorf("read back %v kbit/s over %v s, want exactly %v over %v", got[0].Kbps, got[0].IntervalS, r.Kbps, iv)
	}
	if src[1] != (campaign.RowSource{Name: path, Line: 3}) {
		t.Errorf("second row from %v, want line 3", src[1])
	}
}
