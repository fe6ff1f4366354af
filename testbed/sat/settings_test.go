package sat

import (
	"strings"
	"testing"
	"time"
)

// TestSettingsApply: settings land in the config, the matrix is parsed,
// and a duration under 1 s, an unknown congestion control or an axis
// without '=' is refused.
func TestSettingsApply(t *testing.T) {
	c := DefaultConfig()
	axes, err := Settings{PEP: true, Rate: "5Mbit", LANRate: "50Mbit", Matrix: []string{"pep=on,off window=default,20KB"}}.Apply(&c)
	if err != nil {
		t.Fatal(err)
	}
	if !c.PEP || c.Sat.RateBps != 5e6 || c.LAN.RateBps != 50e6 || len(axes) != 2 || axes[1].Key != "window" || strings.Join(axes[1].Values, ",") != "default,20KB" {
		t.Errorf("config %+v, axes %+v", c, axes)
	}
	for _, bad := range []func(*Config) Settings{
		func(c *Config) Settings { c.Duration = 500 * time.Millisecond; return Settings{} },
		func(c *Config) Settings { c.CC = "vegas2"; return Settings{} },
		func(c *Config) Settings { return Settings{Matrix: []string{"pep"}} },
	} {
		c := DefaultConfig()
		if _, err := bad(&c).Apply(&c); err == nil {
			t.Errorf("no error for %+v", c)
		}
	}
}
