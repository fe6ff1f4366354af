package atomicfile

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// startWriteback starts, every writebackEvery until stop is called, the
// kernel's writeback of f's dirty pages (sync_file_range(2) with
// SYNC_FILE_RANGE_WRITE: it starts the writes and waits for none), so that
// the fsync before the rename waits for the last few megabytes of a large
// output, not for all of them: an 84 MB seq CSV spent 0.23 s in that
// fsync, after its last write (docs/performance.md). It changes nothing of
// what is written or when the rename happens; errors are left to the
// fsync, which reports them. stop returns once the writeback loop is over
// (before f is closed).
func startWriteback(f *os.File) (stop func()) {
	done, over := make(chan struct{}), make(chan struct{})
	fd := int(f.Fd())
	go func() {
		defer close(over)
		t := time.NewTicker(writebackEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = unix.SyncFileRange(fd, 0, 0, unix.SYNC_FILE_RANGE_WRITE)
			}
		}
	}()
	return func() {
		close(done)
		<-over
	}
}
