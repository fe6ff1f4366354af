//go:build unix

package capture

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestCapOverWireSplit: split reading (ReadFrames, Segments) gives what
// Next gives on a capture with records of more captured than original
// bytes: the same segments, Stats.CapOverWire and warning.
func TestCapOverWireSplit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "test.pcap")
	if err := os.WriteFile(p, capOverWire(pcaptest.PcapNano), 0o644); err != nil {
		t.Fatal(err)
	}
	sameRead(t, p)
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readFrames(t, r, 2, 2, 0)
	if len(got.segs) != 3 || got.stats.CapOverWire != 2 || len(got.warnings) != 1 {
		t.Errorf("split read: %d segments, CapOverWire %d, warnings %q; want 3, 2, one", len(got.segs), got.stats.CapOverWire, got.warnings)
	}
}
