package compare

import (
	"testing"

	"github.com/tcpviz/tcpviz/query"
)

// TestRefLabel: runs aligned at one reference point name it; runs of
// which some fell back name each run's in the x label (trial14 C12).
func TestRefLabel(t *testing.T) {
	x := Run{Spec: Spec{Label: "x"}, RefUsed: query.RefData}
	y := Run{Spec: Spec{Label: "y"}, RefUsed: query.RefBulk}
	if got, want := RefLabel([]Run{y, y}), "the first bulk segment"; got != want {
		t.Errorf("RefLabel(same) = %q, want %q", got, want)
	}
	if got, want := RefLabel([]Run{x, y}), "each run's reference point (x: the first data segment; y: the first bulk segment)"; got != want {
		t.Errorf("RefLabel(fallback) = %q, want %q", got, want)
	}
}
