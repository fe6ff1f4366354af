//go:build linux

package sat

import "syscall"

// groupAttr starts a process in its own process group, killed when tcpviz
// dies.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup sends sig to the process group led by pid.
func killGroup(pid int, sig syscall.Signal) { syscall.Kill(-pid, sig) }

// killPID sends sig to the process pid.
func killPID(pid int, sig syscall.Signal) { syscall.Kill(pid, sig) }
