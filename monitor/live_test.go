package monitor

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/capture/live"
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
