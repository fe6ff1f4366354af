package main

import (
	"strconv"
	"strings"
)

// count writes n and a regular English noun in the number n asks for:
// count(1, "file") = "1 file", count(3, "file") = "3 files".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

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
