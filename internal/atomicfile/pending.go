package atomicfile

import "os"

// pending is a temporary file in the target's directory that replaces the
// target when closed: google/renameio's PendingFile on Unix
// (pending_unix.go), a portable fallback elsewhere (pending_other.go).
type pending interface {
	// File is the temporary file to write to.
	File() *os.File
	// Cleanup closes and removes the temporary file; a no-op after
	// CloseAtomicallyReplace succeeded.
	Cleanup() error
	// CloseAtomicallyReplace syncs and closes the file and renames it over
	// the target.
	CloseAtomicallyReplace() error
}
