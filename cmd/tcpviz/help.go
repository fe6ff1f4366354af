package main

import (
	"embed"
	"strings"
)

// helpFS holds the verbs' long help and examples (help/VERB.txt,
// help/VERB.examples.txt): prose kept apart from the flag wiring.
//
//go:embed help/*.txt
var helpFS embed.FS

// help returns help/name with each placeholder of oldnew (pairs, as
// strings.NewReplacer) replaced; a missing file is a build mistake and
// panics at start-up (TestHelpTexts runs every verb's --help).
func help(name string, oldnew ...string) string {
	b, err := helpFS.ReadFile("help/" + name)
	if err != nil {
		panic(err)
	}
	return strings.NewReplacer(oldnew...).Replace(string(b))
}
