package main

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestHelpTexts: every file in help/ is used by some verb, and every verb's
// --help prints its long text with no placeholder left unreplaced.
func TestHelpTexts(t *testing.T) {
	src := ""
	files, _ := fs.Glob(os.DirFS("."), "*.go")
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			b, _ := os.ReadFile(f)
			src += string(b)
		}
	}
	names, err := fs.Glob(helpFS, "help/*.txt")
	if err != nil || len(names) == 0 {
		t.Fatalf("no help files: %v", err)
	}
	for _, n := range names {
		if !strings.Contains(src, `"`+strings.TrimPrefix(n, "help/")+`"`) {
			t.Errorf("%s is used by no verb", n)
		}
	}
	placeholder := regexp.MustCompile(`\{(what|verb|finished|abandoned|backend|filter|metrics)\}`)
	for _, v := range [][]string{{}, {"flows"}, {"seq"}, {"rtt"}, {"retrans"}, {"window"}, {"tput"}, {"compare"}, {"report"},
		{"goodput"}, {"stats"}, {"demo"}, {"testbed", "manet"}, {"testbed", "sat"}} {
		out, _, err := runCLI(t, append(v, "--help")...)
		if err != nil {
			t.Errorf("%v --help: %v", v, err)
		}
		if len(out) < 200 || placeholder.MatchString(out) {
			t.Errorf("%v --help: %d bytes, placeholder left: %v", v, len(out), placeholder.FindString(out))
		}
	}
}

// TestRetransHelpListsClasses: retrans --help names every class its table
// has a column for (tcpanalysis.Classes: it left out pmtu and the icmp_*
// classes) and says that a SYN or FIN sent again is a retransmission
// (docs/metrics.md#control-retransmissions).
func TestRetransHelpListsClasses(t *testing.T) {
	out, _, err := runCLI(t, "retrans", "--help")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(out), " ")
	for _, c := range tcpanalysis.Classes() {
		if !regexp.MustCompile(`\b` + c.String() + `\b`).MatchString(text) {
			t.Errorf("retrans --help does not name class %s", c)
		}
	}
	if !strings.Contains(text, "A SYN, SYN-ACK or FIN sent again is a retransmission") || !strings.Contains(text, "control-retransmissions") {
		t.Errorf("retrans --help does not say a SYN or FIN sent again is a retransmission")
	}
}
