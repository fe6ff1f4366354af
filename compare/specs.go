package compare

import (
	"errors"
	"fmt"
	"path/filepath"
)

// ErrDuplicate is returned by ParseSpecs for a label given twice, or one
// run (the same capture or pair and connection) given under two labels:
// the table would have two columns that cannot be told apart, or a ratio
// of a run to itself.
var ErrDuplicate = errors.New("duplicate run")

// ParseSpecs parses every LABEL=FILE[#conn] argument (ParseSpec) and
// refuses duplicates (ErrDuplicate): two runs with one label, or one run
// twice. Paths are compared cleaned (./a.pcap is a.pcap); a run given
// once with #N and once without is not refused, since which connection
// the default picks is known only after reading.
func ParseSpecs(args []string) ([]Spec, error) {
	specs := make([]Spec, 0, len(args))
	labels := map[string]string{}
	runs := map[Spec]string{}
	for _, a := range args {
		sp, err := ParseSpec(a)
		if err != nil {
			return nil, err
		}
		if prev, ok := labels[sp.Label]; ok {
			return nil, fmt.Errorf("%w: label %q names %q and %q; give each run its own label", ErrDuplicate, sp.Label, prev, a)
		}
		labels[sp.Label] = a
		key := Spec{File: filepath.Clean(sp.File), Conn: sp.Conn}
		if sp.ServerFile != "" {
			key.ServerFile = filepath.Clean(sp.ServerFile)
		}
		if prev, ok := runs[key]; ok {
			return nil, fmt.Errorf("%w: %q and %q are the same run; compare different captures or connections (FILE#N)", ErrDuplicate, prev, a)
		}
		runs[key] = a
		specs = append(specs, sp)
	}
	return specs, nil
}
