package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPEPHonesty: on the satellite testbed's client capture with a PEP,
// flows, tput and seq say the acknowledged bytes were accepted by the PEP
// and do not call them end-to-end goodput; without a PEP they say nothing.
func TestPEPHonesty(t *testing.T) {
	on := "../../testdata/sat/pep-on_window-20KB/client.pcap"
	off := "../../testdata/sat/pep-off_window-20KB/client.pcap"
	const note = "note: conn 1: data ab is acknowledged by a split-TCP PEP"
	out, _, err := runCLI(t, "flows", on)
	if err != nil || !strings.Contains(out, note) || !strings.Contains(out, "accepted, not delivered end to end") {
		t.Errorf("flows: err %v, output lacks the PEP note:\n%s", err, out)
	}
	out, errOut, err := runCLI(t, "tput", on)
	if err != nil || !strings.Contains(out, "accepted by PEP after 1 s") || !strings.Contains(out, "accepted by PEP (not end-to-end goodput)") ||
		!strings.Contains(errOut, note) {
		t.Errorf("tput: err %v\n%s\n%s", err, out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == "goodput" || strings.HasPrefix(strings.TrimSpace(l), "acked after")) {
			t.Errorf("tput still says %q behind a PEP", l)
		}
	}
	_, errOut, err = runCLI(t, "seq", on, "-o", filepath.Join(t.TempDir(), "s.csv"))
	if err != nil || !strings.Contains(errOut, note) {
		t.Errorf("seq: err %v, stderr %q", err, errOut)
	}
	for _, cmd := range []string{"flows", "tput"} {
		out, errOut, _ := runCLI(t, cmd, off)
		if strings.Contains(out+errOut, "split-TCP PEP") {
			t.Errorf("%s without a PEP mentions one:\n%s%s", cmd, out, errOut)
		}
	}
}
