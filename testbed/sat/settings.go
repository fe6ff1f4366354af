package sat

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Settings are the testbed's settings as a command line types them (sizes
// and rates as strings, Config.Set's forms); "" keeps Config's value.
type Settings struct {
	PEP                               bool
	Window, Rate, Loss, Queue, PEPBuf string
	LANRate                           string
	Matrix                            []string // matrix axes, "KEY=V1,V2", several per element allowed (ParseMatrix)
}

// Apply sets s on c (c.CC is checked too) and parses the matrix. Every
// error names the setting that is wrong; c.Duration must be at least 1 s.
func (s Settings) Apply(c *Config) ([]Axis, error) {
	c.PEP = s.PEP
	for _, kv := range [][2]string{{"window", s.Window}, {"rate", s.Rate}, {"loss", s.Loss}, {"queue", s.Queue}, {"pepbuf", s.PEPBuf}, {"cc", c.CC}} {
		if kv[1] == "" {
			continue
		}
		if err := c.Set(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	if s.LANRate != "" {
		r, err := ParseRate(s.LANRate)
		if err != nil {
			return nil, err
		}
		c.LAN.RateBps = r
	}
	if c.Duration < time.Second {
		return nil, errors.New("duration must be at least 1s")
	}
	for _, a := range s.Matrix {
		if !strings.Contains(a, "=") {
			return nil, fmt.Errorf("matrix axis %q: want KEY=V1,V2", a)
		}
	}
	return ParseMatrix(s.Matrix)
}
