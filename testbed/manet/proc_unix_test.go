//go:build unix

package manet

import (
	"os"
	"os/exec"
	"testing"
)

func TestProcessAlive(t *testing.T) {
	if !processAlive(os.Getpid()) {
		t.Error("processAlive(own pid) = false")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no true(1): %v", err)
	}
	if processAlive(cmd.Process.Pid) {
		t.Errorf("processAlive(%d) of an exited, reaped child = true", cmd.Process.Pid)
	}
}
