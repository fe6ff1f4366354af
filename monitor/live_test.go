package monitor

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/capture/live"
	"github.com/tcpviz/tcpviz/query"
)

// TestLiveOpenError: an interface that cannot be opened is an *OpenError
// whose message is the capture's own, and nothing is printed.
func TestLiveOpenError(t *testing.T) {
	var stderr strings.Builder
	_, err := Live(t.Context(), live.Options{Iface: "tcpviz-no-such-if0"}, Config{Verb: RTT, Stdout: io.Discard, Stderr: &stderr})
	var oe *OpenError
	if !errors.As(err, &oe) || oe.Error() != oe.Err.Error() || errors.Unwrap(err) != oe.Err {
		t.Fatalf("Live on a missing interface: %v (%T)", err, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("printed before the capture opened: %q", stderr.String())
	}
}

// TestLiveValidatesFirst: a bad RTT method is refused before the capture
// is opened (the interface does not exist, so opening would fail), with an
// error that names no command-line flag.
func TestLiveValidatesFirst(t *testing.T) {
	var stderr strings.Builder
	_, err := Live(t.Context(), live.Options{Iface: "tcpviz-no-such-if0"}, Config{Verb: RTT, Method: "xx", Stdout: io.Discard, Stderr: &stderr})
	if !errors.Is(err, query.ErrMethod) || strings.Contains(err.Error(), "--") || stderr.Len() != 0 {
		t.Errorf("Live with method xx: %v; stderr %q", err, stderr.String())
	}
	for _, c := range []Config{{Verb: RTT}, {Verb: RTT, Method: "ts"}, {Verb: Tput, Method: "xx"}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := (Config{Verb: Verb(9)}).Validate(); err == nil {
		t.Error("Verb(9) accepted")
	}
}
