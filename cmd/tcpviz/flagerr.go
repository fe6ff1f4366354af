package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// parseFlagError rewrites pflag's refusal of a value it cannot parse, which
// quotes Go's parser ('strconv.ParseInt: parsing "1e3": invalid syntax'),
// as "--conn 1e3: want …": the flag, the value and what the flag wants (its
// numRules entry for a numeric flag; a whole number for an integer one).
// Other errors pass unchanged.
func parseFlagError(c *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil {
		return err
	}
	f := ive.GetFlag()
	return fmt.Errorf("--%s %s: want %s", f.Name, ive.GetValue(), wantOf(c, f))
}

// wantOf says what flag f of verb c takes, for parseFlagError.
func wantOf(c *cobra.Command, f *pflag.Flag) string {
	typ := f.Value.Type()
	r, ok := ruleOf(c, f)
	switch typ {
	case "int", "int64", "uint64", "intSlice", "uint", "int32":
		w := "a whole number"
		if ok {
			w = r.what + ", a whole number"
		}
		if typ == "intSlice" {
			w += " (comma-separated)"
		}
		return w
	case "float64", "float32", "float64Slice", "float32Slice":
		if ok {
			return r.what
		}
		return "a number"
	case "duration":
		if _, sec := f.Value.(secondsValue); sec {
			if rest, found := strings.CutPrefix(r.what, "a number of seconds "); ok && found {
				return "seconds " + rest + " or a duration (e.g. 700ms)" // as checkNumFlags says it
			}
			return "seconds (e.g. 0.5) or a duration (e.g. 500ms)"
		}
		return "a duration (e.g. 100ms, 2s)"
	case "bool":
		return "true or false"
	}
	return "a " + typ
}
