package tcpviz

import (
	"os"
	"os/exec"
	"testing"
)

// TestOtherSystemsVet: the module compiles and vets, tests included, on
// systems other than Linux — Windows (no mmap fast path, no renameio, no
// testbed) and macOS (no AF_PACKET) — so that the Unix-only code keeps a
// portable fallback (capture/mmap_other.go, internal/atomicfile/
// pending_other.go, testbed/sat/linux_other.go).
func TestOtherSystemsVet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: cross-system vet skipped")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	for _, goos := range []string{"windows", "darwin"} {
		cmd := exec.Command(goBin, "vet", "./...")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOOS=%s go vet ./...: %v\n%s", goos, err, out)
		}
	}
}
