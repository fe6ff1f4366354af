// Package textcol prints the aligned text tables of tcpviz's outputs:
// rows of cells as columns separated by two spaces. Widths count runes, so
// "↔" and "µ" take one column. It is shared by package export (the
// commands' tables) and package pep (its evidence tables), which may not
// import each other.
package textcol

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// Write prints rows as columns separated by two spaces, right-aligned
// (right) or left-aligned with no trailing blanks; each column is as wide
// as its widest cell in runes. Errors: w's.
func Write(w io.Writer, rows [][]string, right bool) error {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	bw := bufio.NewWriter(w)
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				bw.WriteString("  ")
			}
			pad := width[i] - utf8.RuneCountInString(c)
			if !right && i == len(r)-1 {
				pad = 0 // no trailing blanks
			}
			if right {
				bw.WriteString(strings.Repeat(" ", pad))
			}
			bw.WriteString(c)
			if !right {
				bw.WriteString(strings.Repeat(" ", pad))
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
