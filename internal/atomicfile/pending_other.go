//go:build !unix

package atomicfile

import (
	"os"
	"path/filepath"
)

// tempPending is the portable fallback of renameio's PendingFile (which
// is Unix-only): a temporary file in the target's directory, synced,
// closed and renamed over the target (os.Rename replaces an existing file
// on Windows too).
type tempPending struct {
	f      *os.File
	target string
	done   bool
}

func (p *tempPending) File() *os.File { return p.f }

// newPending creates the temporary file for target in its directory; an
// existing target's permissions are kept (as far as the system has them).
func newPending(target string) (pending, error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(target); err == nil {
		_ = f.Chmod(fi.Mode().Perm())
	}
	return &tempPending{f: f, target: target}, nil
}

func (p *tempPending) Cleanup() error {
	if p.done {
		return nil
	}
	p.f.Close()
	return os.Remove(p.f.Name())
}

func (p *tempPending) CloseAtomicallyReplace() error {
	if err := p.f.Sync(); err != nil {
		return err
	}
	if err := p.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(p.f.Name(), p.target); err != nil {
		return err
	}
	p.done = true
	return nil
}
