package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// secondsValue is a duration flag that also takes plain seconds, as
// --from and --to do: "3" and "0.5" are seconds, "700ms" and "2s" Go
// durations (trial14 B8: --interval 3 failed with Go's "missing unit").
// Its type is "duration", so numRules checks it as one.
type secondsValue struct{ d *time.Duration }

// secondsVar defines a secondsValue flag on fs.
func secondsVar(fs *pflag.FlagSet, d *time.Duration, name string, value time.Duration, usage string) {
	*d = value
	fs.Var(secondsValue{d}, name, usage)
}

func (v secondsValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt64/1e9 {
			return fmt.Errorf("%q: want seconds (e.g. 0.5) or a duration (e.g. 500ms)", s)
		}
		d := time.Duration(math.Round(f * 1e9))
		if d == 0 && f != 0 {
			return fmt.Errorf("%q: below the 1 ns the capture clock counts (0 means the default)", s)
		}
		*v.d = d
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q: want seconds (e.g. 0.5) or a duration (e.g. 500ms)", s)
	}
	if d == 0 && strings.ContainsAny(s, "123456789") {
		return fmt.Errorf("%q: below the 1 ns the capture clock counts (0 means the default)", s)
	}
	*v.d = d
	return nil
}

func (v secondsValue) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v secondsValue) Type() string { return "duration" }
