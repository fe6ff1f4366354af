package textcol

import "strconv"

// Count writes n and a regular English noun in the number n asks for:
// Count(1, "file") = "1 file", Count(3, "file") = "3 files". The one
// helper of the messages of cmd/tcpviz, query, report and study.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
