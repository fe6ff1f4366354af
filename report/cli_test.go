package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestJobRun: one unreadable capture of two is named on stderr and left
// out, the report is written and the error is a partial *ReadError; two
// unreadable captures write nothing; a capture without TCP is ErrNothing.
func TestJobRun(t *testing.T) {
	dir := t.TempDir()
	geo := "../testdata/synthetic/geo-600ms-loss.pcap"
	missing := filepath.Join(dir, "missing.pcap")
	empty := filepath.Join(dir, "empty.pcap")
	if err := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRaw}).WriteFile(empty); err != nil {
		t.Fatal(err)
	}
	limits := Limits{Conns: 200, Packets: 2_000_000, OnePass: 16 << 20}
	run := func(paths ...string) (out string, stdout, stderr string, err error) {
		var o, e bytes.Buffer
		out = filepath.Join(dir, "r.html")
		os.Remove(out)
		err = Job{Paths: paths, Out: out, Limits: limits, Stdout: &o, Stderr: &e}.Run()
		return out, o.String(), e.String(), err
	}

	out, stdout, stderr, err := run(geo, missing)
	var re *ReadError
	if !errors.As(err, &re) || !re.Partial() || err.Error() != "partial: 1 of 2 captures could not be read: "+missing {
		t.Errorf("geo + missing: error %v, want a partial ReadError", err)
	}
	if stdout != out+"\n" || !strings.Contains(stderr, missing) || !strings.HasSuffix(stderr, ": left out of the report\n") {
		t.Errorf("geo + missing: stdout %q, stderr %q", stdout, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("geo + missing: no report written: %v", err)
	}

	out, stdout, _, err = run(missing, missing)
	if !errors.As(err, &re) || re.Partial() || err.Error() != "none of the 2 captures could be read" {
		t.Errorf("missing twice: error %v, want a ReadError of 2", err)
	}
	if _, serr := os.Stat(out); stdout != "" || serr == nil {
		t.Errorf("missing twice: stdout %q, report written", stdout)
	}

	if _, _, _, err = run(empty); !errors.Is(err, ErrNothing) || !strings.HasPrefix(err.Error(), empty+": ") {
		t.Errorf("no TCP: error %v, want %s: ErrNothing", err, empty)
	}
}
