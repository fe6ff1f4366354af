package main

import (
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/plot"
)

// intervalLabel names an interval width for a title: plot.DurationLabel
// without trailing zeros, as the 1-2-5 widths are exact ("100 ms", "1 s",
// "2.5 s", "250 µs").
func intervalLabel(w time.Duration) string {
	l := plot.DurationLabel(w)
	num, unit, _ := strings.Cut(l, " ")
	if strings.Contains(num, ".") {
		num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	return num + " " + unit
}
