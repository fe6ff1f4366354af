package study

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/campaign"
)

// TestTeXLevel: both captions name the confidence level (trial14 B9: the
// paired one said only "t-CI" with --level 0.9).
func TestTeXLevel(t *testing.T) {
	var b bytes.Buffer
	s := Spec{Name: "x", Group: "protocol", Pair: "seed", PerRun: "sum", Level: 0.9}
	if err := WriteTeX(&b, s, &campaign.Tables{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "90~\\% CI"); n != 2 {
		t.Errorf("captions name 90~\\%% CI %d times, want 2:\n%s", n, b.String())
	}
}
