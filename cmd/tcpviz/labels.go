package main

import (
	"strconv"
	"strings"

	"github.com/tcpviz/tcpviz/internal/textcol"
)

// count is textcol.Count: "1 file", "3 files".
var count = textcol.Count

// connList names connections for a message: "connection 3",
// "connections 0, 1, 2, 3, 4" (more, when it is the first few of many).
func connList(conns []int, more bool) string {
	s := make([]string, len(conns))
	for i, c := range conns {
		s[i] = strconv.Itoa(c)
	}
	l := strings.Join(s, ", ")
	if more {
		l += ", …"
	}
	if len(conns) == 1 && !more {
		return "connection " + l
	}
	return "connections " + l
}
