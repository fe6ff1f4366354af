package export

import (
	"strings"
	"testing"
)

func TestTableWriteRows(t *testing.T) {
	tb := Table{Schema: "tcpviz.test/1", Header: []string{"conn", "dir", "rtt_ms", "note"}, Rows: [][]string{{"0", "ab", "12.5", ""}, {"1", "1", "x", "a,b"}}}
	var csvOut, jsonOut strings.Builder
	if err := tb.WriteRows(&csvOut, false); err != nil {
		t.Fatal(err)
	}
	if want := "conn,dir,rtt_ms,note\n0,ab,12.5,\n1,1,x,\"a,b\"\n"; csvOut.String() != want {
		t.Errorf("CSV %q, want %q", csvOut.String(), want)
	}
	if err := tb.WriteRows(&jsonOut, true); err != nil {
		t.Fatal(err)
	}
	want := `{
  "rows": [
    {
      "conn": 0,
      "dir": "ab",
      "note": null,
      "rtt_ms": 12.5
    },
    {
      "conn": 1,
      "dir": "1",
      "note": "a,b",
      "rtt_ms": "x"
    }
  ],
  "schema": "tcpviz.test/1"
}
`
	if jsonOut.String() != want {
		t.Errorf("JSON\n%s\nwant\n%s", jsonOut.String(), want)
	}
}
