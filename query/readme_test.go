package query

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEListsEveryMetric: the README's `--metric a|b|…` list names
// exactly the metrics of this package, so a metric added here is not left
// out of the user's documentation.
func TestREADMEListsEveryMetric(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip("README.md not found:", err)
	}
	m := regexp.MustCompile("`--metric ([a-z_|]+)`").FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md has no `--metric a|b|…` list")
	}
	var names []string
	for _, x := range Metrics() {
		names = append(names, x.String())
	}
	if got, want := string(m[1]), strings.Join(names, "|"); got != want {
		t.Errorf("README lists --metric %s, want %s (query.Metrics)", got, want)
	}
}
