package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Checks of goodput's study flags that need no capture read (trial14 B5):
// a repeated --order group or --pairs comparison, --starts-rename's
// syntax, and --order/--pairs groups against the group values the file
// names give. Each is a usage error (exit 1) found before any capture is
// opened, where it used to stop the batch after every capture was read.

// checkRepeats refuses a group named twice in --order, or a comparison
// named twice in --pairs.
func (f *studyFlags) checkRepeats() error {
	seen := map[string]bool{}
	for _, o := range f.order {
		if seen[o] {
			return fmt.Errorf("--order names %s twice", o)
		}
		seen[o] = true
	}
	seen = map[string]bool{}
	for _, p := range f.pairs {
		if seen[p] {
			return fmt.Errorf("--pairs names %s twice", p)
		}
		seen[p] = true
	}
	return nil
}

// checkStartsRename checks --starts-rename OLD=NEW values, and that they
// come with --starts (they rename its columns).
func (f *goodputFlags) checkStartsRename() error {
	if len(f.startsRename) > 0 && f.starts == "" {
		return fmt.Errorf("--starts-rename renames columns of --starts FILE: give --starts too")
	}
	for _, kv := range f.startsRename {
		if k, v, ok := strings.Cut(kv, "="); !ok || k == "" || v == "" {
			return fmt.Errorf("--starts-rename %q: want OLD=NEW", kv)
		}
	}
	return nil
}

// checkGroupsOfFiles checks the groups --order and --pairs name against
// the --group values that the file names give through labels (the
// --labels pattern or the manifest): a name no capture has is a typo.
// Files labels does not match are left to the batch (it reports them);
// with --starts, flows it declares may add groups, so only names given by
// files are checked when it is absent.
func (f *goodputFlags) checkGroupsOfFiles(files []string, labels func(string) (map[string]string, bool)) error {
	if f.group == "" || labels == nil || f.starts != "" || (len(f.study.order) == 0 && len(f.study.pairs) == 0) {
		return nil
	}
	var groups []string
	for _, p := range files {
		if l, ok := labels(p); ok {
			if g, ok := l[f.group]; ok && !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	if len(groups) == 0 {
		return nil
	}
	slices.Sort(groups)
	check := func(flag, name string) error {
		if !slices.Contains(groups, name) {
			return fmt.Errorf("%s names %s=%s, but no capture's name gives it (groups: %s)", flag, f.group, name, strings.Join(groups, ", "))
		}
		return nil
	}
	for _, o := range f.study.order {
		if err := check("--order", o); err != nil {
			return err
		}
	}
	for _, p := range f.study.pairs {
		a, b, _ := strings.Cut(p, ":")
		for _, g := range []string{a, b} {
			if err := check("--pairs "+p, g); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkParquetName refuses a --parquet file whose name says another format
// (x.csv would hold Parquet; trial14 B9): .parquet, .pq or no extension.
func (f *goodputFlags) checkParquetName() error {
	if f.parquetOut == "" {
		return nil
	}
	switch ext := strings.ToLower(filepath.Ext(f.parquetOut)); ext {
	case "", ".parquet", ".pq":
		return nil
	default:
		return fmt.Errorf("--parquet %s: the file would hold Parquet under a %s name; name it .parquet (-o FILE.csv or FILE.json writes CSV or JSON)", f.parquetOut, ext)
	}
}
