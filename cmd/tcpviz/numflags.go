package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// numRule is the range a numeric flag accepts when the user sets it:
// min ≤ v ≤ max, or min < v (< max) where the bound is open. A value
// outside it (NaN and ±Inf included) is a usage error, exit 1, before any
// capture is read. Defaults are not checked: -1 or 0 often stand for
// "choose" (--conn -1, --interval 0) and are meaningless when typed;
// hideSentinelDefaults keeps help from printing them.
type numRule struct {
	min, max         float64
	minOpen, maxOpen bool
	what             string // what the value counts, for the message
}

var (
	inf = math.Inf(1)
	// atLeast0 and over0 are the common rules: a count or time that may be
	// zero, and one for which zero means nothing.
	atLeast0 = numRule{min: 0, max: inf, what: "a number ≥ 0"}
	over0    = numRule{min: 0, minOpen: true, max: inf, what: "a number > 0"}
	// maxSeconds is the longest time a capture's clock holds (int64
	// nanoseconds, 292 years); a time in seconds past it cannot be reached
	// (and used to overflow into "bad time range").
	maxSeconds = math.Floor(time.Duration(math.MaxInt64).Seconds())
	// seconds is a time in seconds after a reference point or the epoch.
	seconds = numRule{min: 0, max: maxSeconds, what: fmt.Sprintf("a number of seconds 0-%.0f", maxSeconds)}
)

// numRules holds the rule of every numeric flag of every verb, by flag
// name, or by "verb flag" where one name means different things
// (TestNumRulesCoverEveryFlag keeps it complete). Where a library owns the
// range (flows.MaxWScale, plot.MinDPI …), the rule takes its bounds from
// it; this table only maps them to flag names.
var numRules = map[string]numRule{
	"conn":        {min: 0, max: inf, what: "a connection index ≥ 0 (as 'tcpviz flows' lists)"},
	"port":        {min: 1, max: 65535, what: "a port 1-65535"},
	"wscale":      {min: -1, max: flows.MaxWScale, what: fmt.Sprintf("a shift 0-%d (RFC 7323 §2.3), or -1 for unknown", flows.MaxWScale)},
	"dpi":         {min: plot.MinDPI, max: plot.MaxDPI, what: fmt.Sprintf("%d to %d dpi", plot.MinDPI, plot.MaxDPI)},
	"font-size":   {min: plot.MinFontSize, max: plot.MaxFontSize, what: fmt.Sprintf("%d to %d points", plot.MinFontSize, plot.MaxFontSize)},
	"from":        seconds,
	"to":          seconds, // 0: the end
	"at":          seconds,
	"end":         {min: 0, minOpen: true, max: maxSeconds, what: fmt.Sprintf("a capture time in seconds, > 0 and ≤ %.0f", maxSeconds)},
	"level":       {min: 0, max: 1, minOpen: true, maxOpen: true, what: "a confidence level between 0 and 1, e.g. 0.95"},
	"bytes":       {min: 1, max: inf, what: "a byte count ≥ 1"},
	"interval":    {min: query.MinInterval.Seconds(), max: inf, what: "a number ≥ " + query.MinInterval.String()}, // query.Selection.CheckInterval: and the window
	"path-rtt":    {min: 1e-6, max: inf, what: "a round-trip time ≥ 1µs"},
	"count":       {min: 1, max: inf, what: "a frame count ≥ 1"},
	"duration":    {min: 1e-3, max: inf, what: "a capture time ≥ 1ms"},
	"every":       {min: 0.1, max: inf, what: "a refresh period ≥ 100ms"},
	"jobs":        atLeast0,                                     // goodput: 0 = all cores
	"min-bytes":   {min: 0, max: inf, what: "a byte count ≥ 0"}, // default -1: auto (a hidden sentinel)
	"max-conns":   {min: 1, max: inf, what: "at least 1"},
	"max-packets": {min: 1, max: inf, what: "at least 1"},
	"nodes":       {min: 2, max: inf, what: "at least 2 nodes"},
	"flows":       {min: 1, max: inf, what: "at least 1 flow"},
	"pkt-size":    {min: 0, max: 65507, what: "a UDP payload 0-65507 bytes (0: the preset's)"},
	"speed":       atLeast0,
	"delay":       atLeast0,
	"jitter":      atLeast0,
	"lan-delay":   atLeast0,
	"snaplen":     {min: 0, max: 262144, what: "0-262144 bytes (0: tcpdump's default)"},
	"seed":        {min: 0, max: inf, what: "a seed ≥ 0"},
	"manet jobs":  {min: 1, max: inf, what: "at least 1"},
}

// numericTypes are the pflag value types numRules covers; a duration is
// checked in seconds.
var numericTypes = map[string]bool{"int": true, "int64": true, "uint64": true, "float64": true, "float32": true,
	"duration": true, "float64Slice": true, "float32Slice": true, "intSlice": true}

// ruleOf returns the rule of flag f of verb c.
func ruleOf(c *cobra.Command, f *pflag.Flag) (numRule, bool) {
	if r, ok := numRules[c.Name()+" "+f.Name]; ok {
		return r, true
	}
	r, ok := numRules[f.Name]
	return r, ok
}

func (r numRule) ok(v float64) bool {
	if math.IsInf(v, 0) { // no option counts to infinity
		return false
	}
	lo := v > r.min || (!r.minOpen && v == r.min)
	hi := v < r.max || (!r.maxOpen && v == r.max)
	return lo && hi // false for NaN
}

// checkNumFlags checks every numeric flag the user set on c against its
// rule (numRules): the one check of numeric options, for every verb,
// before any capture is read.
func checkNumFlags(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) { // only flags set on the command line
		if err != nil || !numericTypes[f.Value.Type()] {
			return
		}
		r, ok := ruleOf(c, f)
		if !ok {
			r = atLeast0
		}
		for _, s := range flagValues(f) {
			v, perr := numValue(f.Value.Type(), s)
			if perr != nil {
				continue // pflag refused it already
			}
			if !r.ok(v) {
				if _, slice := f.Value.(pflag.SliceValue); slice {
					s = strconv.FormatFloat(v, 'g', -1, 64) // GetSlice writes 1e300 in full
				}
				what := r.what
				if f.Value.Type() == "duration" {
					if rest, ok := strings.CutPrefix(what, "a number of seconds "); ok {
						what = "seconds " + rest + " or a duration (e.g. 700ms)" // --from, --to
					} else {
						what = strings.Replace(what, "a number", "a duration", 1) + " (e.g. 100ms, 2s)"
					}
				}
				err = fmt.Errorf("--%s %s: want %s", f.Name, s, what)
				if sentinel(f, v) {
					err = fmt.Errorf("%w; leave --%s out for its default", err, f.Name)
				}
				return
			}
		}
	})
	return err
}

// flagValues is the value of f as typed, one string per element of a
// slice flag.
func flagValues(f *pflag.Flag) []string {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	return []string{f.Value.String()}
}

// numValue reads one value of a flag of type typ as a float64 (a duration
// in seconds).
func numValue(typ, s string) (float64, error) {
	if typ == "duration" {
		d, err := time.ParseDuration(s)
		return d.Seconds(), err
	}
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

// sentinelKey annotates a flag whose default stands for "choose" and is
// outside its rule: the annotation holds the default (hideSentinelDefaults).
const sentinelKey = "tcpviz-sentinel-default"

// hideSentinelDefaults walks the command tree from c: a numeric flag whose
// default is outside its rule (--conn -1: the largest connection;
// --interval 0: the 1-2-5 width) is a marker the user cannot type, so help
// does not print it as "(default -1)" — the usage says the default in
// words — and typing it is refused with a hint to leave the flag out
// (checkNumFlags). The default itself, the value the flag holds when not
// set, is unchanged.
func hideSentinelDefaults(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !numericTypes[f.Value.Type()] || f.Annotations[sentinelKey] != nil {
			return
		}
		r, ok := ruleOf(c, f)
		if !ok {
			r = atLeast0
		}
		v, err := numValue(f.Value.Type(), f.DefValue)
		if err != nil || r.ok(v) {
			return // a slice's "[]", or a default the user may type
		}
		if f.Annotations == nil {
			f.Annotations = map[string][]string{}
		}
		f.Annotations[sentinelKey] = []string{f.DefValue}
		f.DefValue = "0" // what pflag takes for "no default to print" for every numeric type
	})
	for _, s := range c.Commands() {
		hideSentinelDefaults(s)
	}
}

// sentinel reports whether v, typed for f, is f's hidden default.
func sentinel(f *pflag.Flag, v float64) bool {
	d := f.Annotations[sentinelKey]
	if len(d) == 0 {
		return false
	}
	dv, err := numValue(f.Value.Type(), d[0])
	return err == nil && dv == v
}
