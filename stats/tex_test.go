package stats

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTeXCompiles typesets the LaTeX tables with pdflatex and booktabs
// (Debian texlive-latex-base, texlive-latex-recommended), with the study's
// rows and every character the writers escape.
func TestTeXCompiles(t *testing.T) {
	if _, err := exec.LookPath("pdflatex"); err != nil {
		t.Skip("pdflatex not installed (texlive-latex-base): LaTeX tables not typeset")
	}
	var b bytes.Buffer
	b.WriteString("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n")
	o := TeXOptions{Caption: "Goodput, $n = 20$", Label: "tab:x", Group: "proto_col & 100%", Metric: "goodput", Unit: "kbps", Key: "seed"}
	groups := append(append([]GroupRow(nil), studyGroups...), GroupRow{Label: `a_b&c%d$e#f{g}h~i^j\k<l>`, N: 2, Mean: 1, Lo: 0, Hi: 2})
	if err := WriteGroupsTeX(&b, o, groups); err != nil {
		t.Fatal(err)
	}
	if err := WritePairsTeX(&b, o, studyTeXPairs); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\\end{document}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.tex"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hung TeX must not hang the suite
	defer cancel()
	cmd := exec.CommandContext(ctx, "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdflatex: %v\n%s\n--- input:\n%s", err, out, b.Bytes())
	}
}
