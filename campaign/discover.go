package campaign

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Listing is what List found: the captures to analyse, the paths that could
// not be listed (an unreadable directory, a symlink loop, a dangling link),
// which a batch reports as failed captures, and notes on what was skipped on
// purpose (a FIFO or device with a capture name, which would block a read).
type Listing struct {
	Files  []string    // sorted, without duplicates
	Failed []FileError // in the order found
	Notes  []string    // one line each, naming the path
}

// List expands files, directories (recursively, capture endings only) and
// glob patterns into a Listing. A path that exists is taken literally, even
// if its name holds the glob characters * ? [ ]; only a path that does not
// exist is read as a pattern. A pattern that matches nothing, or a literal
// path that does not exist, is an error: nothing was analysed. A symbolic
// link given as an argument is followed, to a file or a directory; links
// found inside directories are followed to files, not to directories (no
// loop can then make the walk endless). List never opens a file, so a
// FIFO cannot block it.
func List(args []string) (*Listing, error) {
	l := &Listing{}
	seen := map[string]bool{}
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			l.Files = append(l.Files, p)
		}
	}
	fail := func(p string, err error) { l.Failed = append(l.Failed, FileError{File: p, Err: err}) }
	// file takes one path that is not a directory, following symlinks.
	file := func(p string, st fs.FileInfo) {
		switch {
		case st.Mode().IsRegular():
			add(p)
		default:
			l.Notes = append(l.Notes, fmt.Sprintf("%s: skipped: not a regular file (%s)", p, st.Mode().Type()))
		}
	}
	for _, a := range args {
		matches := []string{a}
		if _, err := os.Lstat(a); err != nil && strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("pattern %q: %v", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: no file matches", a)
			}
			matches = m
		}
		for _, p := range matches {
			st, err := os.Stat(p)
			if err != nil {
				if _, lerr := os.Lstat(p); lerr == nil { // a link that loops or dangles
					fail(p, err)
					continue
				}
				return nil, err
			}
			if !st.IsDir() {
				file(p, st)
				continue
			}
			// A directory given as an argument through a symlink is
			// walked (WalkDir does not follow a root that is a link: the
			// trailing separator makes it); links to directories found
			// inside it are still skipped.
			root := p
			if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
				root = p + string(filepath.Separator)
			}
			filepath.WalkDir(root, func(q string, d fs.DirEntry, err error) error {
				if err != nil {
					fail(q, err) // unreadable directory: list it, go on
					if d != nil && d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				if d.IsDir() || !IsCaptureName(d.Name()) {
					return nil
				}
				st, err := os.Stat(q) // follows a symlink
				if err != nil {
					fail(q, err)
					return nil
				}
				if st.IsDir() {
					l.Notes = append(l.Notes, fmt.Sprintf("%s: skipped: a link to a directory", q))
					return nil
				}
				file(q, st)
				return nil
			})
		}
	}
	sort.Strings(l.Files)
	return l, nil
}
