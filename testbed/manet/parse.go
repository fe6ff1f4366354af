package manet

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxSeeds bounds ParseSeeds so that a typo like "1-1000000" fails early.
const maxSeeds = 100000

// ParseSeeds parses a seed list such as "1-5,8" into sorted, distinct run
// numbers (>= 1).
func ParseSeeds(s string) ([]int, error) {
	var seeds []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("seeds %q: empty item", s)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := parseSeed(lo)
		if err != nil {
			return nil, fmt.Errorf("seeds %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = parseSeed(hi); err != nil {
				return nil, fmt.Errorf("seeds %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("seeds %q: range %d-%d runs backwards", s, a, b)
			}
		}
		if b-a >= maxSeeds || len(seeds)+b-a >= maxSeeds {
			return nil, fmt.Errorf("seeds %q: more than %d seeds", s, maxSeeds)
		}
		for i := a; i <= b; i++ {
			seeds = append(seeds, i)
		}
	}
	slices.Sort(seeds)
	return slices.Compact(seeds), nil
}

func parseSeed(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("bad seed %q", s)
	}
	if n < 1 {
		return 0, fmt.Errorf("seed %d: want >= 1", n)
	}
	return n, nil
}

// ParseArea parses "WIDTHxHEIGHT" in metres, e.g. "1000x300" (also "X" or
// "×" as separator).
func ParseArea(s string) (x, y float64, err error) {
	t := strings.NewReplacer("×", "x", "X", "x").Replace(strings.TrimSpace(s))
	xs, ys, ok := strings.Cut(t, "x")
	if !ok {
		return 0, 0, fmt.Errorf("area %q: want WIDTHxHEIGHT, e.g. 1000x300", s)
	}
	x, errX := strconv.ParseFloat(strings.TrimSpace(xs), 64)
	y, errY := strconv.ParseFloat(strings.TrimSpace(ys), 64)
	if errX != nil || errY != nil || !(x > 0) || !(y > 0) || x > 1e9 || y > 1e9 {
		return 0, 0, fmt.Errorf("area %q: want two positive numbers of metres, e.g. 1000x300", s)
	}
	return x, y, nil
}

// ParseSeconds parses a duration given either in Go syntax ("100s", "1m30s",
// "500ms") or as a bare number of seconds ("100", "2.5"). Negative values are
// rejected.
func ParseSeconds(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("empty duration")
	}
	var d time.Duration
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		if f > 1e6 || f != f {
			return 0, fmt.Errorf("duration %q: out of range", s)
		}
		d = time.Duration(f * float64(time.Second))
	} else {
		d, err = time.ParseDuration(t)
		if err != nil {
			return 0, fmt.Errorf("duration %q: want e.g. 100s, 1m30s or a number of seconds", s)
		}
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q: negative", s)
	}
	return d, nil
}

// ParseProtocols parses a comma-separated protocol list ("aodv,olsr" or
// "all") into distinct names in the order given.
func ParseProtocols(s string) ([]string, error) { return ParseProtocolsHook(s, false) }

// ParseProtocolsHook is ParseProtocols that, with hook set, also accepts
// names outside Protocols (letters, digits, '_') for the routing-helper
// hook.
func ParseProtocolsHook(s string, hook bool) ([]string, error) {
	if strings.TrimSpace(strings.ToLower(s)) == "all" {
		return slices.Clone(Protocols), nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		if !slices.Contains(Protocols, p) && !(hook && validHookName(p)) {
			if hook {
				return nil, fmt.Errorf("protocol %q: want one of %s, all, or a hook protocol name of letters, digits and _", p, strings.Join(Protocols, ", "))
			}
			return nil, fmt.Errorf("protocol %q: want one of %s or all (other names need --routing-hook)", p, strings.Join(Protocols, ", "))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}
