package campaign

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Listing is what List found: the captures to analyse, the paths that could
// not be listed (an unreadable directory, a symlink loop, a dangling link),
// which a batch reports as failed captures, notes on what was skipped on
// purpose (a FIFO or device with a capture name, which would block a read),
// and the paths left out because they hold a capture already listed.
type Listing struct {
	Files  []string    // sorted, one path per capture
	Failed []FileError // in the order found
	Notes  []string    // one line each, naming the path
	// Same are the paths left out because they hold a capture of Files
	// (SamePath), in the order found: a capture given twice — by a
	// relative and an absolute path, through a symlink, in two folders —
	// would count as two runs and narrow every confidence interval.
	Same []SamePath
}

// Sameness says how two paths hold one capture.
type Sameness uint8

// How two paths hold one capture.
const (
	// SameFile: the paths name one file (os.SameFile: device and inode,
	// symlinks followed).
	SameFile Sameness = iota + 1
	// SameBytes: two files at different inodes with the same size and the
	// same bytes (their first and last 64 KiB, then SHA-256 of the whole
	// file): a copy.
	SameBytes
)

// String is "the same file" or "a byte-identical copy".
func (s Sameness) String() string {
	switch s {
	case SameFile:
		return "the same file"
	case SameBytes:
		return "a byte-identical copy"
	}
	return fmt.Sprintf("Sameness(%d)", uint8(s))
}

// SamePath is a path List left out: Path holds the capture that Kept, a
// path of Listing.Files, holds, as How says.
type SamePath struct {
	Kept, Path string
	How        Sameness
}

// String names both paths: "b.pcap is the same file as a.pcap", "b.pcap
// is a byte-identical copy of a.pcap".
func (s SamePath) String() string {
	if s.How == SameBytes {
		return fmt.Sprintf("%s is a byte-identical copy of %s", s.Path, s.Kept)
	}
	return fmt.Sprintf("%s is the same file as %s", s.Path, s.Kept)
}

// ErrSameCapture is returned by ListWith when two paths hold one capture
// (SamePath) but their labels differ: one capture cannot be two runs.
var ErrSameCapture = errors.New("one capture under two paths with different labels")

// ListOptions control ListWith.
type ListOptions struct {
	// Labels, when set, gives a path's labels (Options.Labels): of the
	// paths of one capture the first whose labels it gives is kept (a
	// path the pattern rejects yields to one it accepts), and two whose
	// labels differ are an error wrapping ErrSameCapture.
	Labels func(path string) (map[string]string, bool)
}

// List is ListWith without labels.
func List(args []string) (*Listing, error) { return ListWith(args, ListOptions{}) }

// ListWith expands files, directories (recursively, capture endings only)
// and glob patterns into a Listing. A path that exists is taken literally,
// even if its name holds the glob characters * ? [ ]; only a path that does
// not exist is read as a pattern. A pattern that matches nothing, or a
// literal path that does not exist, is an error: nothing was analysed. A
// symbolic link given as an argument is followed, to a file or a directory;
// links found inside directories are followed to files, not to directories
// (no loop can then make the walk endless).
//
// One capture is listed once, whatever its path's spelling: paths that
// name one file (os.SameFile) and byte-identical copies (same size, same
// first and last 64 KiB, same SHA-256) are one capture, the first path
// found is kept (argument order, then directory order; with o.Labels the
// first it labels) and the others are in Listing.Same. Only regular files
// of equal size are opened, to compare their bytes, so a FIFO cannot
// block the listing. Two paths of one capture with different labels are
// an error wrapping ErrSameCapture naming both and the labels.
func ListWith(args []string, o ListOptions) (*Listing, error) {
	l := &Listing{}
	seen := map[string]bool{}
	var found []candidate
	add := func(p string, st fs.FileInfo) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			found = append(found, candidate{p, st, len(found)})
		}
	}
	fail := func(p string, err error) { l.Failed = append(l.Failed, FileError{File: p, Err: err}) }
	// file takes one path that is not a directory, following symlinks.
	file := func(p string, st fs.FileInfo) {
		switch {
		case st.Mode().IsRegular():
			add(p, st)
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
	groups := sameCaptures(found)
	var order []int // of l.Same: the index of its path in found
	for _, g := range groups {
		kept, err := keptOf(g, o.Labels)
		if err != nil {
			return nil, err
		}
		l.Files = append(l.Files, g[kept].path)
		for i, c := range g {
			if i == kept {
				continue
			}
			how := SameBytes
			if os.SameFile(g[kept].st, c.st) {
				how = SameFile
			}
			l.Same = append(l.Same, SamePath{Kept: g[kept].path, Path: c.path, How: how})
			order = append(order, c.i)
		}
	}
	sort.Sort(byOrder{l.Same, order})
	sort.Strings(l.Files)
	return l, nil
}

// candidate is a regular file List found, with its os.Stat.
type candidate struct {
	path string
	st   fs.FileInfo
	i    int // its index in the order found
}

// byOrder sorts paths by the order they were found.
type byOrder struct {
	s     []SamePath
	order []int
}

func (b byOrder) Len() int           { return len(b.s) }
func (b byOrder) Less(i, j int) bool { return b.order[i] < b.order[j] }
func (b byOrder) Swap(i, j int) {
	b.s[i], b.s[j] = b.s[j], b.s[i]
	b.order[i], b.order[j] = b.order[j], b.order[i]
}

// sameCaptures groups the files found into captures, each group in the
// order found and the groups in the order of their first path: paths of
// one file (os.SameFile), then files of equal size whose first and last
// sameBytesBlock bytes and then whole contents (SHA-256) are equal. Only
// files that share their size with another file are read; one that cannot
// be read is compared with none (its analysis reports the error).
func sameCaptures(found []candidate) [][]candidate {
	bySize := map[int64][]int{} // size → indices of groups
	var groups [][]candidate
	for _, c := range found {
		joined := false
		for _, gi := range bySize[c.st.Size()] {
			if os.SameFile(groups[gi][0].st, c.st) {
				groups[gi] = append(groups[gi], c)
				joined = true
				break
			}
		}
		if !joined {
			bySize[c.st.Size()] = append(bySize[c.st.Size()], len(groups))
			groups = append(groups, []candidate{c})
		}
	}
	merged := make([]bool, len(groups))
	// into merges the groups of idx (ascending) whose key is equal into
	// the first of them; key "" compares with none.
	into := func(idx []int, key func(gi int) string) [][]int {
		byKey := map[string][]int{}
		var keys []string
		for _, gi := range idx {
			k := key(gi)
			if k == "" {
				continue
			}
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], gi)
		}
		var out [][]int
		for _, k := range keys {
			if len(byKey[k]) > 1 {
				out = append(out, byKey[k])
			}
		}
		return out
	}
	for _, idx := range bySize {
		if len(idx) < 2 {
			continue
		}
		sort.Ints(idx)
		for _, sameEnds := range into(idx, func(gi int) string { return headTailSum(groups[gi][0]) }) {
			for _, same := range into(sameEnds, func(gi int) string { return fileSum(groups[gi][0].path) }) {
				for _, gi := range same[1:] {
					groups[same[0]] = append(groups[same[0]], groups[gi]...)
					merged[gi] = true
				}
			}
		}
	}
	out := groups[:0]
	for i, g := range groups {
		if !merged[i] {
			sort.Slice(g, func(a, b int) bool { return g[a].i < g[b].i })
			out = append(out, g)
		}
	}
	return out
}

// sameBytesBlock is how much of each end of two files of equal size
// sameCaptures compares before it hashes them whole.
const sameBytesBlock = 64 << 10

// headTailSum returns the SHA-256 of the first and last sameBytesBlock
// bytes of c's file, or "" if it cannot be read.
func headTailSum(c candidate) string {
	f, err := os.Open(c.path)
	if err != nil {
		return ""
	}
	defer f.Close()
	n := min(c.st.Size(), sameBytesBlock)
	b := make([]byte, n)
	h := sha256.New()
	if _, err := io.ReadFull(f, b); err != nil {
		return ""
	}
	h.Write(b)
	if c.st.Size() > sameBytesBlock {
		if _, err := f.ReadAt(b, c.st.Size()-n); err != nil {
			return ""
		}
		h.Write(b)
	}
	return string(h.Sum(nil))
}

// fileSum returns the SHA-256 of the file at path, or "" if it cannot be
// read.
func fileSum(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return string(h.Sum(nil))
}

// keptOf returns the index of the path of group g (one capture) to keep:
// the first, or with labels the first it labels; two paths it labels
// differently are an error wrapping ErrSameCapture.
func keptOf(g []candidate, labels func(string) (map[string]string, bool)) (int, error) {
	if labels == nil || len(g) == 1 {
		return 0, nil
	}
	kept := -1
	var kl map[string]string
	for i, c := range g {
		l, ok := labels(c.path)
		if !ok {
			continue
		}
		if kept < 0 {
			kept, kl = i, l
			continue
		}
		if d := labelDiff(kl, l); d != "" {
			how := SameBytes
			if os.SameFile(g[kept].st, c.st) {
				how = SameFile
			}
			return 0, fmt.Errorf("%w: %s and %s are %s, but their labels differ (%s): one capture cannot be two runs; remove the copy or fix the labels",
				ErrSameCapture, g[kept].path, c.path, map[Sameness]string{SameFile: "one file", SameBytes: "byte-identical copies"}[how], d)
		}
	}
	if kept < 0 {
		kept = 0
	}
	return kept, nil
}

// labelDiff names the labels whose values differ between a and b
// ("seed=1 vs seed=2, protocol=aodv vs protocol=olsr"), sorted by name;
// "" when they are equal.
func labelDiff(a, b map[string]string) string {
	names := map[string]bool{}
	for n := range a {
		names[n] = true
	}
	for n := range b {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var d []string
	for _, n := range sorted {
		va, oka := a[n]
		vb, okb := b[n]
		if va != vb || oka != okb {
			d = append(d, fmt.Sprintf("%s=%s vs %s=%s", n, orNone(va, oka), n, orNone(vb, okb)))
		}
	}
	return strings.Join(d, ", ")
}

func orNone(v string, ok bool) string {
	if !ok {
		return "(none)"
	}
	return v
}
