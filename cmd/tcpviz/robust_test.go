package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestOutputCheckedFirst: a bad --output fails before any capture is read.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"flows", "-o", filepath.Join(dir, "missing", "x.csv"), "no-such.pcap"}, "directory " + filepath.Join(dir, "missing")},
		{[]string{"rtt", "-o", filepath.Join(dir, "x.xlsx"), "no-such.pcap"}, `unknown ending ".xlsx"`},
		{[]string{"flows", "-o", dir, "no-such.pcap"}, "is a directory"},
	} {
		_, _, err := runCLI(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "no-such.pcap") {
			t.Errorf("tcpviz %s: err = %v, want %q before reading the capture", strings.Join(tt.args, " "), err, tt.want)
		}
	}
}

// TestHostileFilesCLI: the verbs that panicked on ../shared/hostile files.
func TestHostileFilesCLI(t *testing.T) {
	dir := sharedtest.Dir(t, "hostile")
	f := filepath.Join(dir, "tput-ts-overflow-min.pcapng")
	for _, args := range [][]string{{"tput", f}, {"flows", f}, {"compare", "--metric", "tput", "a=" + f}} {
		_, errOut, err := runCLI(t, args...)
		if c := exitCode(err); c != 0 && c != 2 {
			t.Errorf("tcpviz %s: exit %d (%v)", strings.Join(args, " "), c, err)
		}
		if !strings.Contains(errOut, "frame 2: timestamp") {
			t.Errorf("tcpviz %s: stderr %q does not name the frame", strings.Join(args, " "), errOut)
		}
	}
}

// TestOutputNotAnInput: -o naming an input of the run (the capture itself,
// by another spelling, through a link, compare's LABEL=FILE#CONN, a
// --starts file) is refused before anything is written, and the input is
// left as it was (a fresh-eyes trial overwrote its capture with the
// flows table).
func TestOutputNotAnInput(t *testing.T) {
	dir := t.TempDir()
	capPath := filepath.Join(dir, "cap")
	data, err := os.ReadFile(synth)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(capPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(capPath, link); err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(dir, "starts.csv")
	if err := os.WriteFile(starts, []byte("src,sport,dst,dport,start_s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(".", capPath)
	if err != nil {
		rel = capPath
	}
	for _, args := range [][]string{
		{"flows", capPath, "-o", capPath},
		{"flows", rel, "-o", capPath},
		{"flows", capPath, "--csv", "-o", link},
		{"seq", capPath, "-o", link},
		{"compare", "a=" + capPath + "#0", "b=" + synth, "-o", link},
		{"goodput", dir, "--starts", starts, "-o", starts},
	} {
		_, _, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), "this run reads") {
			t.Errorf("tcpviz %s: err = %v, want the input refused", strings.Join(args, " "), err)
		}
	}
	if got, _ := os.ReadFile(capPath); !bytes.Equal(got, data) {
		t.Errorf("the capture was changed")
	}
	if _, _, err := runCLI(t, "flows", capPath, "-o", filepath.Join(dir, "out.csv")); err != nil {
		t.Errorf("flows -o out.csv: %v", err)
	}
}

// TestReportOnceEach: a capture given twice to report (another spelling,
// a link) is read once with a note; report F F had shown each connection
// twice.
func TestReportOnceEach(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.pcap")
	abs, err := filepath.Abs(synth)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.html")
	_, errs, err := runCLI(t, "report", synth, link, abs, "-o", out)
	if err != nil || strings.Count(errs, "given before: read once") != 2 {
		t.Fatalf("report F F F: err %v, stderr:\n%s", err, errs)
	}
	one := filepath.Join(dir, "one.html")
	if _, _, err := runCLI(t, "report", synth, "-o", one); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(one)
	if c := strings.Count(string(a), "geo-600ms-loss"); c == 0 || c != strings.Count(string(b), "geo-600ms-loss") {
		t.Errorf("report of the capture given three times names it %d times, once given %d", c, strings.Count(string(b), "geo-600ms-loss"))
	}
}
