//go:build !unix

package capture

import (
	"io"
	"os"
)

func mapFile(f *os.File) (io.Reader, func()) { return nil, nil }
