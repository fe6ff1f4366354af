package campaign

import (
	"errors"
	"testing"
)

// TestTextRender: options in a message are named by the library's names,
// or by the caller's; a warning starts with its severity's prefix.
func TestTextRender(t *testing.T) {
	flag := func(o Option) string { return map[Option]string{OptEnd: "--end", OptStarts: "--starts"}[o] }
	w := Warn(Caution, WarnInterval, "%d flows start at or after %s %g s; see %s", 3, OptEnd, 15.0, OptStarts)
	if got := w.String(); got != "warning: 3 flows start at or after End 15 s; see Starts" {
		t.Errorf("library names: %q", got)
	}
	if got := w.Message(flag); got != "warning: 3 flows start at or after --end 15 s; see --starts" {
		t.Errorf("flag names: %q", got)
	}
	for s, p := range map[Severity]string{Info: "", Note: "note: ", Caution: "warning: ", Loud: "WARNING: ", Failure: "error: ", 99: "warning: "} {
		if s.Prefix() != p {
			t.Errorf("severity %d: prefix %q, want %q", s, s.Prefix(), p)
		}
	}
	cause := errors.New("bad")
	err := error(&OptionError{Option: OptInterval, Err: ErrInvalidOption, Cause: cause, Text: Textf("%s: %v", OptInterval, cause)})
	if !errors.Is(err, ErrInvalidOption) || !errors.Is(err, cause) || err.Error() != "Interval: bad" || Option(200).String() != "Option(200)" {
		t.Errorf("%v", err)
	}
}
