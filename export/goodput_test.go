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
			FirstS: 8.258724, LastS: 29.995835, Bytes: 557480, Kbps: 205.172, IntervalS: 21.737111, Vantage: campaign.AtReceiver, Captures: 4, Source: campaign.IntervalSource("groundtruth"), CaptureWarnings: 2,
			Labels: map[string]string{"protocol": "aodv", "seed": "1"}},
		{File: "b/x.pcap", RunKey: "b", Conn: 3, Src: "::1", SPort: 1, Dst: "::2", DPort: 2, Bytes: 0, Vantage: campaign.AtSender, Captures: 1,
			Labels: map[string]string{"protocol": "olsr", "seed": "2"}},
	}
	var buf bytes.Buffer
	if err := WriteGoodputCSV(&buf, rows, []string{"protocol", "seed"}); err != nil {
		t.Fatal(err)
	}
	if h := strings.SplitN(buf.String(), "\n", 2)[0]; h != "file,conn,src,sport,dst,dport,first_s,last_s,bytes,goodput_kbps,protocol,seed,interval_s,run,vantage,captures,interval_from,capture_warnings" {
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
	// Not a goodput CSV: the error names the file and the missing column.
	os.WriteFile(path, []byte("file,conn\nx,1\n"), 0o644)
	if _, err := ReadGoodputCSV(path); err == nil || !strings.Contains(err.Error(), "rows.csv") || !strings.Contains(err.Error(), `"src"`) {
		t.Errorf("flows CSV without columns: %v", err)
	}
}
