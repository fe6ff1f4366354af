//go:build linux

package sat

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Legacy ethtool commands (linux/ethtool.h) that switch one offload each.
const (
	ethtoolSRXCSUM = 0x15
	ethtoolSTXCSUM = 0x17
	ethtoolSSG     = 0x19
	ethtoolSTSO    = 0x1f
	ethtoolSGSO    = 0x24
	ethtoolSGRO    = 0x2c
)

type ethtoolValue struct {
	cmd  uint32
	data uint32
}

type ifreqData struct {
	name [unix.IFNAMSIZ]byte
	data uintptr
	_    [16]byte
}

// DisableOffloads turns off rx/tx checksum offload, scatter-gather, TSO, GSO
// and GRO on ifname in the current network namespace, like
// `ethtool -K IF rx off tx off sg off tso off gso off gro off`, so captures
// and the AF_PACKET emulator see wire-size frames with full checksums.
func DisableOffloads(ifname string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("ethtool socket: %w", err)
	}
	defer unix.Close(fd)
	// Order matters: GSO/TSO depend on SG and checksums; switch them off first.
	for _, c := range []uint32{ethtoolSGRO, ethtoolSGSO, ethtoolSTSO, ethtoolSSG, ethtoolSTXCSUM, ethtoolSRXCSUM} {
		v := ethtoolValue{cmd: c}
		var ifr ifreqData
		copy(ifr.name[:unix.IFNAMSIZ-1], ifname)
		ifr.data = uintptr(unsafe.Pointer(&v))
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr)))
		if errno != 0 {
			return fmt.Errorf("ethtool cmd %#x on %s: %w", c, ifname, errno)
		}
	}
	return nil
}
