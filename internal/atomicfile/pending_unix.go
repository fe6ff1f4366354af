//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// renamePending is renameio's PendingFile, which is Unix-only.
type renamePending struct{ *renameio.PendingFile }

func (p renamePending) File() *os.File { return p.PendingFile.File }

// newPending creates the temporary file for target in its directory: new
// files get 0644 less the umask, an existing target keeps its permissions.
func newPending(target string) (pending, error) {
	pf, err := renameio.NewPendingFile(target, renameio.WithTempDir(filepath.Dir(target)),
		renameio.WithPermissions(0o644), renameio.WithExistingPermissions())
	if err != nil {
		return nil, err
	}
	return renamePending{pf}, nil
}
