package main

import (
	"regexp"
	"testing"
)

// Findings of the second fresh-user trial (notes/trial14.md), each
// checked with real values.

// A2: the handshake rows are the connection's whatever --ref and
// --from/--to (docs/schema.md#selection): 613.098 ms ab, 0.073 ms ba on
// the PEP-off data connection, 613.515 / 0.080 ms on its control
// connection.
func TestRTTHandshakeWhateverRef(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"rtt", satOff, "--conn", "1", "--ref", "bulk"}, []string{`1\s+ab\s+bulk\s+handshake\s+1\s+613\.098`, `1\s+ba\s+bulk\s+handshake\s+1\s+0\.073`}},
		{[]string{"rtt", satOff, "--conn", "1", "--from", "2", "--to", "6"}, []string{`1\s+ab\s+handshake\s+1\s+613\.098`, `1\s+ba\s+handshake\s+1\s+0\.073`}},
		{[]string{"rtt", satOff, "--conn", "0", "--ref", "data"}, []string{`0\s+ab\s+data\s+handshake\s+1\s+613\.515`, `0\s+ba\s+data\s+handshake\s+1\s+0\.080`}},
	} {
		out, _, err := runCLI(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		for _, w := range c.want {
			if !regexp.MustCompile(w).MatchString(out) {
				t.Errorf("%v: no row %q in\n%s", c.args, w, out)
			}
		}
	}
	out, _, err := runCLI(t, "rtt", satOff, "--ref", "bulk", "--from", "2", "--to", "4", "--csv")
	if err != nil {
		t.Fatal(err)
	}
	col, rows := readCSV(t, out)
	hs := map[string]string{}
	for _, r := range rows {
		if r[col["method"]] == "handshake" {
			hs[r[col["dir"]]] = r[col["rtt_ms"]]
		}
	}
	if hs["ab"] != "613.098000" || hs["ba"] != "0.073000" {
		t.Errorf("handshake rows with --ref bulk --from 2 --to 4: %v, want ab 613.098000, ba 0.073000", hs)
	}
}
