package stats

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from current output")

// Rows from the MANET TCP arm's published tables (goodput, kbps, n = 20),
// plus an undefined interval and a label that needs escaping.
var (
	studyGroups = []GroupRow{
		{"anthocnet", 20, 1346.0, 1301.9, 1390.0},
		{"olsr", 20, 1335.8, 1253.1, 1418.6},
		{"dsdv", 20, 1147.5, 1070.8, 1224.1},
		{"aodv", 20, 1026.7, 977.4, 1076.0},
		{"single|run", 1, 1000, math.NaN(), math.NaN()},
	}
	studyPairs = []PairRow{
		{"anthocnet vs aodv", 20, 319.2, 256.4, 382.1, 2 / math.Exp2(20), 20},
		{"olsr vs aodv", 20, 309.1, 211.0, 407.2, 1.7e-4, 18},
		{"dsdv vs aodv", 20, 120.7, 48.6, 192.9, 3.7e-3, 15},
		{"anthocnet vs olsr", 20, 10.1, -74.9, 95.2, 0.43, 6},
		{"x vs y", 1, -2, math.NaN(), math.NaN(), 1, 0},
	}
)

func TestTablesGolden(t *testing.T) {
	const title = "Goodput, mean with t-based 95% CI"
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"groups.md", func(b *bytes.Buffer) error { return WriteGroupsMarkdown(b, title, "kbps", studyGroups) }},
		{"pairs.md", func(b *bytes.Buffer) error {
			return WritePairsMarkdown(b, "Paired per-seed differences", "kbps", studyPairs)
		}},
		{"groups.csv", func(b *bytes.Buffer) error { return WriteGroupsCSV(b, studyGroups) }},
		{"pairs.csv", func(b *bytes.Buffer) error { return WritePairsCSV(b, studyPairs) }},
		{"groups.rounded.csv", func(b *bytes.Buffer) error { return WriteGroupsCSVRounded(b, studyGroups) }},
		{"pairs.rounded.csv", func(b *bytes.Buffer) error { return WritePairsCSVRounded(b, studyTeXPairs) }},
		{"groups.tex", func(b *bytes.Buffer) error {
			return WriteGroupsTeX(b, TeXOptions{Caption: "Goodput, mean with t-based 95~\\% CI, $n = 20$", Label: "tab:goodput",
				Group: "protocol", Metric: "goodput", Unit: "kbps", Key: "seed"}, studyGroups)
		}},
		{"pairs.tex", func(b *bytes.Buffer) error {
			return WritePairsTeX(b, TeXOptions{Caption: "Paired per-seed differences", Group: "protocol", Metric: "goodput", Unit: "kbps", Key: "seed"}, studyTeXPairs)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := tt.write(&got); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s output differs from %s; run 'go test -update' and review the diff\ngot:\n%s", tt.name, golden, got.Bytes())
			}
		})
	}
}

// studyTeXPairs are studyPairs labelled as campaign.Aggregate labels
// them ("a − b", U+2212).
var studyTeXPairs = func() []PairRow {
	out := append([]PairRow(nil), studyPairs...)
	for i := range out {
		out[i].Label = strings.ReplaceAll(out[i].Label, " vs ", " − ")
	}
	return out
}()

// TestFormatPAs pins the study's p values in the three typesets.
func TestFormatPAs(t *testing.T) {
	tests := []struct {
		p               float64
		ascii, uni, tex string
	}{
		{2 / math.Exp2(20), "1.9e-06", "1.9 × 10⁻⁶", `$1.9 \times 10^{-6}$`},
		{1.7e-4, "1.7e-04", "1.7 × 10⁻⁴", `$1.7 \times 10^{-4}$`},
		{3.7e-3, "3.7e-03", "3.7 × 10⁻³", `$3.7 \times 10^{-3}$`},
		{0.43, "0.43", "0.43", "0.43"},
		{1, "1.0", "1.0", "1.0"},
		{1.2e-12, "1.2e-12", "1.2 × 10⁻¹²", `$1.2 \times 10^{-12}$`},
	}
	for _, tt := range tests {
		for ts, want := range map[Typeset]string{ASCII: tt.ascii, Unicode: tt.uni, TeX: tt.tex} {
			if got := FormatPAs(tt.p, ts); got != want {
				t.Errorf("FormatPAs(%v, %d) = %q, want %q", tt.p, ts, got, want)
			}
		}
	}
}

// TestGroupsMarkdownInline pins the exact Markdown of one row without a
// title, so the format is visible in the test itself.
func TestGroupsMarkdownInline(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGroupsMarkdown(&b, "", "", studyGroups[:1]); err != nil {
		t.Fatal(err)
	}
	want := "| group | n | mean [CI] |\n| :--- | ---: | ---: |\n| anthocnet | 20 | 1346.0 [1301.9, 1390.0] |\n"
	if b.String() != want {
		t.Errorf("WriteGroupsMarkdown = %q, want %q", b.String(), want)
	}
}

func TestFormatP(t *testing.T) {
	for _, tt := range []struct {
		p    float64
		want string
	}{
		{2 / math.Exp2(20), "1.9e-06"},
		{1.7e-4, "1.7e-04"},
		{3.7e-3, "3.7e-03"},
		{20.0 / 512, "0.039"},
		{0.43, "0.43"},
		{0.01, "0.010"},
		{1, "1.0"},
		{0, "0"},
		{math.NaN(), "n/a"},
	} {
		if got := FormatP(tt.p); got != tt.want {
			t.Errorf("FormatP(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteErrors(t *testing.T) {
	for name, err := range map[string]error{
		"groups.md":  WriteGroupsMarkdown(failWriter{}, "t", "kbps", studyGroups),
		"pairs.md":   WritePairsMarkdown(failWriter{}, "t", "kbps", studyPairs),
		"groups.csv": WriteGroupsCSV(failWriter{}, studyGroups),
		"pairs.csv":  WritePairsCSV(failWriter{}, studyPairs),
	} {
		if !errors.Is(err, errWrite) {
			t.Errorf("%s to a failing writer: error %v, want %v", name, err, errWrite)
		}
	}
}

func TestFormatPTwoDigits(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{{0.898, "0.90"}, {0.43, "0.43"}, {0.0431, "0.043"}, {1, "1.0"}, {0.999, "1.0"}, {0.0996, "0.10"}, {0.01, "0.010"}, {0.5, "0.50"}, {0.0019, "1.9e-03"}} {
		if got := FormatP(c.p); got != c.want {
			t.Errorf("FormatP(%g) = %q, want %q", c.p, got, c.want)
		}
		if got := FormatPAs(c.p, Unicode); c.p >= 0.01 && got != c.want {
			t.Errorf("FormatPAs(%g) = %q, want %q", c.p, got, c.want)
		}
	}
	if got := texTies(`mean with t-based 95 \% CI`); got != `mean with t-based 95~\% CI` {
		t.Errorf("texTies = %q", got)
	}
}
