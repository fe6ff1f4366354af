package study

import "testing"

// TestSomeOf: "the rest" appears only when there is one, and counts agree
// with their nouns.
func TestSomeOf(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{someOf(24, 24, "their first data"), "(all 24 flows)"},
		{someOf(1, 1, "their first data"), "(the 1 flow)"},
		{someOf(3, 24, "their first data"), "(3 of 24 flows; the rest: their first data)"},
		{count(1, "file"), "1 file"},
		{count(0, "file"), "0 files"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
