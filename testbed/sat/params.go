package sat

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var numUnit = regexp.MustCompile(`^\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z/]*)\s*$`)

// ParseRate parses a link rate such as "10Mbit", "100mbit", "1.5Gbit",
// "500kbit", "10M" or "9600" (bit/s) and returns it in bit/s (SI prefixes).
func ParseRate(s string) (int64, error) {
	m := numUnit.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("rate %q: want NUMBER[k|M|G][bit|bps]", s)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("rate %q: %w", s, err)
	}
	u := strings.ToLower(m[2])
	u = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(u, "/s"), "bps"), "bit")
	mult := map[string]float64{"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[u]
	if mult == 0 {
		return 0, fmt.Errorf("rate %q: unknown unit %q", s, m[2])
	}
	if r := v * mult; !(r >= 1 && r <= 1e12) {
		return 0, fmt.Errorf("rate %q: want 1 bit/s to 1 Tbit/s", s)
	}
	return int64(v * mult), nil
}

// ParseSize parses a byte count such as "20KB", "20K", "1.5MB", "750000"
// with binary prefixes (K = 1024 bytes, as iperf3 and tc do) and returns
// bytes.
func ParseSize(s string) (int, error) {
	m := numUnit.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("size %q: want NUMBER[K|M|G][B]", s)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	u := strings.TrimSuffix(strings.ToLower(m[2]), "b")
	u = strings.TrimSuffix(u, "i")
	mult := map[string]float64{"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[u]
	if mult == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q", s, m[2])
	}
	return int(v * mult), nil
}

// Axis is one dimension of a run matrix: a parameter and its values.
type Axis struct {
	Key    string   // parameter name accepted by Config.Set
	Values []string // values in the order given
}

// ParseMatrix parses matrix specs such as "pep=on,off window=default,20KB".
// Each element of specs may hold several whitespace- or ';'-separated
// axes. Keys are checked against Config.Set.
func ParseMatrix(specs []string) ([]Axis, error) {
	var axes []Axis
	seen := map[string]bool{}
	for _, spec := range specs {
		for _, f := range strings.FieldsFunc(spec, func(r rune) bool { return r == ';' || r == ' ' || r == '\t' }) {
			k, v, ok := strings.Cut(f, "=")
			if !ok || k == "" || v == "" {
				return nil, fmt.Errorf("matrix axis %q: want KEY=V1,V2", f)
			}
			k = strings.ToLower(k)
			if seen[k] {
				return nil, fmt.Errorf("matrix axis %q given twice", k)
			}
			seen[k] = true
			var c Config
			vals := strings.Split(v, ",")
			for _, val := range vals {
				if err := c.Set(k, val); err != nil {
					return nil, fmt.Errorf("matrix: %w", err)
				}
			}
			axes = append(axes, Axis{Key: k, Values: vals})
		}
	}
	return axes, nil
}

// Point is one combination of matrix values, in axis order.
type Point []struct{ Key, Value string }

// Name returns a file-name-safe run name such as "pep-on_window-20KB".
func (p Point) Name() string {
	var parts []string
	for _, kv := range p {
		v := strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
				return r
			}
			return '_'
		}, kv.Value)
		parts = append(parts, kv.Key+"-"+v)
	}
	if len(parts) == 0 {
		return "run"
	}
	return strings.Join(parts, "_")
}

// Expand returns the cartesian product of axes, the first axis varying
// slowest. No axes give one empty Point.
func Expand(axes []Axis) []Point {
	pts := []Point{nil}
	for _, a := range axes {
		var next []Point
		for _, p := range pts {
			for _, v := range a.Values {
				q := append(Point(nil), p...)
				q = append(q, struct{ Key, Value string }{a.Key, v})
				next = append(next, q)
			}
		}
		pts = next
	}
	return pts
}

// Set sets one parameter by name from its command-line form. Keys: pep
// (on|off), window (default|SIZE), cc, duration, delay, jitter, rate, loss,
// queue, emulator, pepbuf.
func (c *Config) Set(key, val string) error {
	bad := func(err error) error { return fmt.Errorf("%s=%s: %w", key, val, err) }
	switch key {
	case "pep":
		switch strings.ToLower(val) {
		case "on", "true", "1", "yes":
			c.PEP = true
		case "off", "false", "0", "no":
			c.PEP = false
		default:
			return bad(fmt.Errorf("want on or off"))
		}
	case "window":
		if strings.EqualFold(val, "default") || val == "" {
			c.WindowBytes = 0
			return nil
		}
		n, err := ParseSize(val)
		if err != nil {
			return bad(err)
		}
		c.WindowBytes = n
	case "cc":
		switch val {
		case "cubic", "reno", "bbr":
			c.CC = val
		default:
			return bad(fmt.Errorf("want cubic, reno or bbr"))
		}
	case "duration":
		d, err := time.ParseDuration(val)
		if err != nil {
			return bad(err)
		}
		if d < time.Second {
			return bad(fmt.Errorf("at least 1s"))
		}
		c.Duration = d
	case "delay", "jitter":
		d, err := time.ParseDuration(val)
		if err != nil {
			return bad(err)
		}
		if d < 0 {
			return bad(fmt.Errorf("negative"))
		}
		if key == "delay" {
			c.Sat.Delay = d
		} else {
			c.Sat.Jitter = d
		}
	case "rate":
		r, err := ParseRate(val)
		if err != nil {
			return bad(err)
		}
		c.Sat.RateBps = r
	case "loss":
		s := strings.TrimSuffix(val, "%")
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad(err)
		}
		if s != val {
			f /= 100
		}
		if !(f >= 0 && f < 1) { // NaN too
			return bad(fmt.Errorf("loss must be in [0,1) or [0%%,100%%)"))
		}
		c.Sat.Loss = f
	case "queue":
		n, err := ParseSize(val)
		if err != nil {
			return bad(err)
		}
		c.Sat.QueueBytes = n
	case "emulator":
		switch val {
		case "auto", "userspace", "netem":
			c.Emulator = val
		default:
			return bad(fmt.Errorf("want auto, userspace or netem"))
		}
	case "pepbuf":
		n, err := ParseSize(val)
		if err != nil {
			return bad(err)
		}
		c.PEPBufBytes = n
	default:
		return fmt.Errorf("unknown parameter %q (want pep, window, cc, duration, delay, jitter, rate, loss, queue, emulator, pepbuf)", key)
	}
	return nil
}
