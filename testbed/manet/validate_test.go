package manet

import (
	"math"
	"testing"
)

// TestValidateNumbers: a NaN speed and a CBR rate ns-3 cannot parse (NaN,
// 0, a unit it does not know) are refused before anything is built
// (trial13: every numeric option refuses NaN and meaningless values).
func TestValidateNumbers(t *testing.T) {
	for _, rate := range []string{"NaN", "0", "0kbps", "-5kbps", "5 kbps", "5kbit", "Infbps"} {
		s := DefaultScenario()
		s.CBRRate = rate
		if err := s.Validate(); err == nil {
			t.Errorf("CBR rate %q: no error", rate)
		}
	}
	for _, rate := range []string{"100kbps", "512bps", "1.5Mb/s", "2KiBps", "1000", "0.5kbps"} {
		s := DefaultScenario()
		s.CBRRate = rate
		if err := s.Validate(); err != nil {
			t.Errorf("CBR rate %q: %v", rate, err)
		}
	}
	s := DefaultScenario()
	s.Speed = math.NaN()
	if err := s.Validate(); err == nil {
		t.Error("speed NaN: no error")
	}
}
