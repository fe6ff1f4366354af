package main

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"
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
