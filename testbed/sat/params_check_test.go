package sat

import "testing"

// TestSettingsRefuseBadNumbers: NaN, zero rates, negative delays and a
// loss outside [0, 1) are refused when the settings are read (flags and
// matrix axes alike), before any namespace is made (trial13 B2's rule for
// every numeric option).
func TestSettingsRefuseBadNumbers(t *testing.T) {
	for _, s := range []Settings{{Rate: "NaN"}, {Rate: "0"}, {Rate: "0.1bit"}, {LANRate: "0"}, {Loss: "NaN"}, {Loss: "NaN%"}, {Loss: "1"},
		{Matrix: []string{"loss=NaN"}}, {Matrix: []string{"rate=0"}}, {Matrix: []string{"delay=-5ms"}}, {Matrix: []string{"jitter=-1ms"}}} {
		c := DefaultConfig()
		if _, err := s.Apply(&c); err == nil {
			t.Errorf("Apply(%+v): no error", s)
		}
	}
	c := DefaultConfig()
	if _, err := (Settings{Rate: "10Mbit", Loss: "1%", Matrix: []string{"delay=0s,300ms"}}).Apply(&c); err != nil || c.Sat.RateBps != 10_000_000 || c.Sat.Loss != 0.01 {
		t.Errorf("Apply(10Mbit, 1%%): %v, rate %d loss %v", err, c.Sat.RateBps, c.Sat.Loss)
	}
}
