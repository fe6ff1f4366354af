// Package atomicfile writes outputs so that readers and crashes never see
// a half-written file: through a temporary file in the target's directory,
// fsynced and renamed over the target (google/renameio). It also keeps the
// list of temporary files to remove when a signal stops the process, and
// refuses to replace an output once the process was interrupted.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// interrupted is set by Interrupt.
var interrupted atomic.Bool

// writebackEvery is how often, on Linux, Write starts the kernel's
// writeback of what was written so far (startWriteback).
const writebackEvery = 25 * time.Millisecond

// commitMu orders Interrupt and the renames of Write: a rename that
// began before Interrupt ends before Interrupt returns (and is in
// Replaced), and none begins after it.
var commitMu sync.Mutex

// replaced are the outputs Write replaced, as their callers named them.
var replaced []string

// Interrupt marks the process as stopped by a signal: Write replaces no
// output from now on (it returns ErrInterrupted). An output whose rename
// had begun is replaced first; Replaced lists it.
func Interrupt() {
	commitMu.Lock()
	interrupted.Store(true)
	commitMu.Unlock()
}

// Replaced returns the outputs Write has replaced so far, in order, as
// their callers named them: after Interrupt, what the run wrote before the
// signal (a signal between an output's fsync and its rename leaves that
// output written, not half-written and not refused).
func Replaced() []string {
	commitMu.Lock()
	defer commitMu.Unlock()
	return append([]string(nil), replaced...)
}

var (
	tempMu sync.Mutex
	temps  = map[string]bool{}
)

// Track registers a temporary file to remove if a signal stops the run.
func Track(path string) {
	tempMu.Lock()
	temps[path] = true
	tempMu.Unlock()
}

// Untrack unregisters a temporary file (renamed or removed).
func Untrack(path string) {
	tempMu.Lock()
	delete(temps, path)
	tempMu.Unlock()
}

// RemoveTracked removes every temporary file registered (Track) and not
// yet renamed: call it when a signal stops the process.
func RemoveTracked() {
	tempMu.Lock()
	defer tempMu.Unlock()
	for p := range temps {
		os.Remove(p)
		delete(temps, p)
	}
}

// ErrInterrupted is returned instead of replacing an output after Interrupt.
var ErrInterrupted = errors.New("interrupted: output not written")

// Target resolves the file an output path names: a symlink is
// followed (its target is replaced, the link kept); a directory or a
// read-only file is refused.
func Target(path string) (string, error) {
	target := path
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			// A dangling link: write where it points.
			dest, rerr := os.Readlink(path)
			if rerr != nil {
				return "", fmt.Errorf("output %s: %w", path, err)
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(path), dest)
			}
			resolved = dest
		}
		target = resolved
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return "", fmt.Errorf("output %s: is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		return "", fmt.Errorf("output %s: not a regular file", path)
	case err == nil && st.Mode().Perm()&0o222 == 0:
		return "", fmt.Errorf("output %s: file is read-only; not replaced", path)
	}
	return target, nil
}

// pathErr strips the temporary file's name from err, so messages name only
// the user's path.
func pathErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("write %s: %w", path, err)
}

// Write writes data produced by write to path through a
// temporary file in the target's directory (google/renameio): the data is
// fsynced before the rename, so readers and crashes never see a
// half-written output (pending_unix.go; elsewhere a portable fallback,
// pending_other.go). An existing target keeps its permissions (new files
// get 0644 less the umask); a symlinked target is followed; a read-only one
// is refused. After Interrupt nothing is replaced. Errors of the output
// name path, never the temporary file ("write PATH: …"); an error of
// write's own that is not the temporary file's (reading the input, say) is
// returned as it is.
func Write(path string, write func(f *os.File) error) error {
	target, err := Target(path)
	if err != nil {
		return err
	}
	pf, err := newPending(target)
	if err != nil {
		return pathErr(path, err)
	}
	tmp := pf.File().Name()
	Track(tmp)
	defer func() {
		pf.Cleanup() // no-op after a successful replace
		Untrack(tmp)
	}()
	stopWriteback := startWriteback(pf.File())
	err = write(pf.File())
	stopWriteback()
	if err != nil {
		// An error of the temporary file's is the output's; any other
		// (reading the input, say) is write's own and goes out as is.
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == tmp {
			return pathErr(path, err)
		}
		return err
	}
	if interrupted.Load() {
		return ErrInterrupted
	}
	// The data to disk first, outside commitMu (a signal meanwhile is
	// not held up by it); then, under commitMu, the check and the rename
	// (the fsync CloseAtomicallyReplace repeats has nothing left to do).
	if err := pf.File().Sync(); err != nil {
		return pathErr(path, err)
	}
	commitMu.Lock()
	defer commitMu.Unlock()
	if interrupted.Load() {
		return ErrInterrupted
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return pathErr(path, err)
	}
	replaced = append(replaced, path)
	return nil
}

// CheckDir checks, before any work, that Write can create files in dir:
// it exists, is a directory, and a file can be created there (a probe
// file, removed at once).
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %w", dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	probe, err := os.CreateTemp(dir, ".tcpviz-probe-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable", dir)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}
