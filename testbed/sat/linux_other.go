//go:build !linux

package sat

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// errNotLinux: the testbed needs Linux (network namespaces, AF_PACKET,
// IP_TRANSPARENT, ethtool ioctls); elsewhere the package only compiles,
// so that tcpviz builds and its other verbs work.
var errNotLinux = errors.New("the satellite testbed needs Linux")

func RunEmulator(context.Context, EmuConfig) error { return errNotLinux }
func RunPEP(context.Context, PEPConfig) error      { return errNotLinux }
func DisableOffloads(string) error                 { return errNotLinux }

func groupAttr() *syscall.SysProcAttr { return nil }

// killGroup signals the process alone (no process groups here).
func killGroup(pid int, sig syscall.Signal) { killPID(pid, sig) }

// killPID sends sig to the process pid.
func killPID(pid int, sig syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Signal(sig)
	}
}
