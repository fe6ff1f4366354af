package pep

import (
	"strings"
	"testing"
	"time"
)

// TestRTTText: evidence sentences give durations with three significant
// digits, in µs below 1 ms and ns below 1 µs, so that a microsecond path
// (the bench capture bulk.pcap: min ACK RTT 11 µs, handshake 50 µs) no
// longer prints "min ACK RTT 0.0 ms … ≥ handshake RTT / 4 = 0.0 ms".
func TestRTTText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                         "0 ms",
		500:                       "500 ns",
		11 * time.Microsecond:     "11.0 µs",
		12500:                     "12.5 µs",
		1234 * time.Nanosecond:    "1.23 µs",
		999 * time.Microsecond:    "999 µs",
		time.Millisecond:          "1.00 ms",
		11183 * time.Microsecond:  "11.2 ms",
		613098 * time.Microsecond: "613 ms",
		2500 * time.Millisecond:   "2500 ms",
	} {
		if got := rttText(d); got != want {
			t.Errorf("rttText(%v) = %q, want %q", d, got, want)
		}
	}
	it := ackVsHandshake(rttStat{n: 416401, min: 11 * time.Microsecond, p50: 12 * time.Microsecond}, 50*time.Microsecond, nil, false)
	if want := "min ACK RTT 11.0 µs (median 12.0 µs, 416401 samples)"; !strings.HasPrefix(it.Observed, want) {
		t.Errorf("observed %q, want it to start %q", it.Observed, want)
	}
	if want := "≥ handshake RTT / 4 = 12.5 µs (handshake 50.0 µs)"; !strings.HasPrefix(it.Expected, want) {
		t.Errorf("expected %q, want it to start %q", it.Expected, want)
	}
}
