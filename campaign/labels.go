package campaign

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Pattern extracts campaign labels from a capture's path, e.g.
// "{protocol}/run{seed}/{prefix}-{node}-{dev}.pcap". A {name} matches one or
// more characters other than '/' (when several splits fit, earlier labels
// take as much as they can); everything else is literal. The pattern
// is matched against the end of the path (on a '/' boundary), and a
// compression suffix (.gz, .zst) on the file is ignored.
type Pattern struct {
	src   string
	re    *regexp.Regexp
	names []string
	seps  map[string]string // label → the literal characters next to it (not '/')
}

// ParsePattern compiles a label pattern. It returns an error for an empty
// pattern, one without any {label}, an unclosed brace, or a label name
// used twice.
func ParsePattern(p string) (*Pattern, error) {
	if p == "" {
		return nil, fmt.Errorf("empty label pattern")
	}
	var b strings.Builder
	b.WriteString(`(?:^|/)`)
	var names []string
	seen := map[string]bool{}
	seps := map[string]string{}
	for i := 0; i < len(p); {
		if p[i] == '{' {
			j := strings.IndexByte(p[i:], '}')
			if j < 0 {
				return nil, fmt.Errorf("label pattern %q: unclosed {", p)
			}
			name := p[i+1 : i+j]
			if name == "" || seen[name] || !regexp.MustCompile(`^\w+$`).MatchString(name) {
				return nil, fmt.Errorf("label pattern %q: bad or repeated label name %q", p, name)
			}
			seen[name] = true
			names = append(names, name)
			if i > 0 && p[i-1] != '/' && p[i-1] != '}' {
				seps[name] += p[i-1 : i]
			}
			if k := i + j + 1; k < len(p) && p[k] != '/' && p[k] != '{' && p[k] != '.' {
				seps[name] += p[k : k+1]
			}
			b.WriteString(`([^/]+)`)
			i += j + 1
			continue
		}
		b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		i++
	}
	b.WriteString(`$`)
	if len(names) == 0 {
		return nil, fmt.Errorf("label pattern %q: no {label} in it; e.g. '{protocol}/run{seed}/{prefix}-{node}-{dev}.pcap'", p)
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("label pattern %q: %v", p, err)
	}
	return &Pattern{src: p, re: re, names: names, seps: seps}, nil
}

// Swallowed returns, for labels matched by p, the labels whose value
// contains a separator the pattern puts next to that label (e.g.
// protocol "tcp-aodv-r1" from "{protocol}-{seed}.pcap"): the pattern then
// probably does not fit the file names. Sorted "name=value" strings.
func (p *Pattern) Swallowed(labels map[string]string) []string {
	var out []string
	for _, n := range p.names {
		if sep := p.seps[n]; sep != "" && strings.ContainsAny(labels[n], sep) {
			out = append(out, n+"="+labels[n])
		}
	}
	sort.Strings(out)
	return out
}

// LabelConflicts returns, for the labels names, the runs whose rows
// disagree on a label's value ("RUN: name = a, b"): a run's captures must
// share the labels its goodput is grouped or paired by.
func LabelConflicts(rows []FlowRow, names []string) []string {
	vals := map[string]map[string]map[string]bool{} // run → name → values
	var runs []string
	for _, r := range rows {
		if r.File == "" {
			continue // a declared flow without a capture carries the run's common labels
		}
		if vals[r.RunKey] == nil {
			vals[r.RunKey] = map[string]map[string]bool{}
			runs = append(runs, r.RunKey)
		}
		for _, n := range names {
			if vals[r.RunKey][n] == nil {
				vals[r.RunKey][n] = map[string]bool{}
			}
			vals[r.RunKey][n][r.Labels[n]] = true
		}
	}
	var out []string
	for _, run := range runs {
		for _, n := range names {
			if len(vals[run][n]) > 1 {
				var vs []string
				for v := range vals[run][n] {
					vs = append(vs, fmt.Sprintf("%q", v))
				}
				sort.Strings(vs)
				out = append(out, fmt.Sprintf("%s: %s = %s", filepath.Base(run), n, strings.Join(vs, ", ")))
			}
		}
	}
	return out
}

// Names returns the label names in pattern order.
func (p *Pattern) Names() []string { return p.names }

// Match returns the labels of path, or false when it does not match.
func (p *Pattern) Match(path string) (map[string]string, bool) {
	path = filepath.ToSlash(path)
	for _, ext := range []string{".gz", ".zst"} {
		if strings.HasSuffix(path, ext) && !strings.HasSuffix(p.src, ext) {
			path = strings.TrimSuffix(path, ext)
		}
	}
	m := p.re.FindStringSubmatch(path)
	if m == nil {
		return nil, false
	}
	out := make(map[string]string, len(p.names))
	for i, n := range p.names {
		out[n] = m[i+1]
	}
	return out, true
}

// Manifest maps capture paths to labels, read from a CSV whose first column
// is "file" and whose other columns are label names. A capture is found
// by its path or, spelled otherwise (relative or absolute, through a
// symlink), by its file (os.SameFile).
type Manifest struct {
	Names  []string
	labels map[string]map[string]string
	files  []manifestFile // the listed files that exist, in file order
}

// manifestFile is a file a manifest lists: its path, os.Stat and line.
type manifestFile struct {
	path string
	st   os.FileInfo
	line int
}

// ReadManifest reads a manifest CSV. Relative file names are taken relative
// to the manifest's directory. Errors name the file and line, for a
// malformed CSV and for one capture listed twice (by one path or two
// paths of one file) with different labels.
func ReadManifest(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %v", path, err)
	}
	if len(head) < 2 || head[0] != "file" {
		return nil, fmt.Errorf("manifest %s: the first column must be 'file', then label columns", path)
	}
	m := &Manifest{Names: head[1:], labels: map[string]map[string]string{}}
	lineOf := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %v", path, err)
		}
		line, _ := cr.FieldPos(0)
		file := rec[0]
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(path), file)
		}
		file = filepath.Clean(file)
		l := map[string]string{}
		for i, n := range m.Names {
			l[n] = rec[i+1]
		}
		if prev, ok := m.labels[file]; ok {
			if d := labelDiff(prev, l); d != "" {
				return nil, fmt.Errorf("manifest %s: line %d: %s again, with other labels than on line %d (%s)", path, line, rec[0], lineOf[file], d)
			}
			continue
		}
		st, err := os.Stat(file)
		if err == nil {
			for _, o := range m.files {
				if os.SameFile(o.st, st) {
					if d := labelDiff(m.labels[o.path], l); d != "" {
						return nil, fmt.Errorf("manifest %s: line %d: %s is the file of line %d (%s), with other labels (%s): one capture cannot be two runs", path, line, rec[0], o.line, o.path, d)
					}
				}
			}
			m.files = append(m.files, manifestFile{file, st, line})
		}
		m.labels[file], lineOf[file] = l, line
	}
	return m, nil
}

// Labels returns the labels of a capture path, or false if neither the
// path nor its file (os.SameFile) is listed.
func (m *Manifest) Labels(path string) (map[string]string, bool) {
	if l, ok := m.labels[filepath.Clean(path)]; ok {
		return l, ok
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, false
	}
	for _, f := range m.files {
		if os.SameFile(f.st, st) {
			return m.labels[f.path], true
		}
	}
	return nil, false
}

// captureExts are the file endings Discover takes from directories.
var captureExts = []string{".pcap", ".pcapng", ".cap", ".pcap.gz", ".pcapng.gz", ".pcap.zst", ".pcapng.zst"}

// IsCaptureName reports whether a file name has a capture ending.
func IsCaptureName(name string) bool {
	for _, e := range captureExts {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	return false
}

// Discover is List without the failures and notes: it returns the first
// path that could not be listed as an error.
func Discover(args []string) ([]string, error) {
	l, err := List(args)
	if err != nil {
		return nil, err
	}
	if len(l.Failed) > 0 {
		return nil, fmt.Errorf("%s: %w", l.Failed[0].File, l.Failed[0].Err)
	}
	return l.Files, nil
}

// ns3Suffix matches ns-3's per-device capture naming PREFIX-NODE-DEV.pcap.
var ns3Suffix = regexp.MustCompile(`^(.*)-(\d+)-(\d+)\.(pcap|pcapng)(\.gz|\.zst)?$`)

// RunKey names the run a capture belongs to, so that the captures of one
// run taken at different points (one per node in ns-3; client and server in
// the satellite testbed) are deduplicated together: the path without ns-3's
// -NODE-DEV.pcap suffix, or else the capture's directory. Flows are then
// matched by endpoints and initial sequence number, so distinct connections
// are never merged. RunKey is the path as spelled; RunKeys groups captures
// by their resolved directory, so the spelling does not split a run.
func RunKey(path string) string {
	if m := ns3Suffix.FindStringSubmatch(path); m != nil {
		return m[1]
	}
	return filepath.Dir(path)
}

// resolvedRunKey is RunKey of path with its directory made absolute and
// its symlinks resolved (dirs caches the resolved directories): one run
// key for a run's captures however their paths are spelled (relative or
// absolute, through a symlinked directory). A file that is itself a
// symlink keeps its name: its labels and run are those of the name it is
// listed under.
func resolvedRunKey(path string, dirs map[string]string) string {
	dir := filepath.Dir(path)
	r, ok := dirs[dir]
	if !ok {
		r = dir
		if a, err := filepath.Abs(dir); err == nil {
			r = a
			if e, err := filepath.EvalSymlinks(a); err == nil {
				r = e
			}
		}
		if dirs != nil {
			dirs[dir] = r
		}
	}
	return RunKey(filepath.Join(r, filepath.Base(path)))
}

// RunKeys maps each capture path to its run key: the captures whose
// resolved run keys (RunKey of the path with its directory absolute and
// symlinks resolved) are equal are one run, named by RunKey of the first
// of them in sorted order. So ns3/tcp-aodv-r1-1-0.pcap and
// /abs/ns3/tcp-aodv-r1-10-0.pcap are one run, named /abs/ns3/tcp-aodv-r1,
// and a campaign given as one spelling keeps the run keys it always had.
func RunKeys(files []string) map[string]string {
	sorted := append([]string(nil), files...)
	sort.Strings(sorted)
	dirs := map[string]string{}
	name := map[string]string{} // resolved key → run key
	out := make(map[string]string, len(files))
	for _, f := range sorted {
		k := resolvedRunKey(f, dirs)
		if _, ok := name[k]; !ok {
			name[k] = RunKey(f)
		}
		out[f] = name[k]
	}
	return out
}

// shardName is what InShard hashes: the last two elements of the
// capture's resolved run key (e.g. ns3/tcp-aodv-r1, aodv/run3), the same
// whatever the path's spelling and wherever the campaign's folder is
// mounted, so that the array tasks of one campaign agree on every run's
// shard.
func shardName(path string) string {
	k := resolvedRunKey(path, nil)
	return filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(k)), filepath.Base(k)))
}
