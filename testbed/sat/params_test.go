package sat

import (
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"10Mbit", 10e6}, {"100mbit", 100e6}, {"1.5Gbit", 1.5e9}, {"500kbit", 500e3},
		{"10M", 10e6}, {"9600", 9600}, {"2Mbps", 2e6},
	}
	for _, tt := range tests {
		if got, err := ParseRate(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseRate(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "fast", "10Xbit"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) succeeded, want error", in)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"20KB", 20480}, {"20K", 20480}, {"20kb", 20480}, {"1.5MB", 1572864}, {"750000", 750000}, {"1MiB", 1 << 20},
	}
	for _, tt := range tests {
		if got, err := ParseSize(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestMatrix(t *testing.T) {
	axes, err := ParseMatrix([]string{"pep=on,off window=default,20KB", "cc=bbr"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range Expand(axes) {
		names = append(names, p.Name())
	}
	want := []string{
		"pep-on_window-default_cc-bbr", "pep-on_window-20KB_cc-bbr",
		"pep-off_window-default_cc-bbr", "pep-off_window-20KB_cc-bbr",
	}
	if len(names) != len(want) {
		t.Fatalf("Expand names = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, names[i], want[i])
		}
	}
	for _, bad := range []string{"pep=maybe", "window=lots", "foo=1", "pep", "pep=on pep=off", "cc=vegas"} {
		if _, err := ParseMatrix([]string{bad}); err == nil {
			t.Errorf("ParseMatrix(%q) succeeded, want error", bad)
		}
	}
	if got := Expand(nil); len(got) != 1 || got[0].Name() != "run" {
		t.Errorf("Expand(nil) = %v, want one point named run", got)
	}
}

func TestConfigSet(t *testing.T) {
	c := DefaultConfig()
	for _, kv := range [][2]string{{"pep", "on"}, {"window", "20KB"}, {"cc", "bbr"}, {"delay", "250ms"},
		{"rate", "5Mbit"}, {"loss", "1%"}, {"duration", "4s"}, {"queue", "100K"}} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	if !c.PEP || c.WindowBytes != 20480 || c.CC != "bbr" || c.Sat.Delay != 250*time.Millisecond ||
		c.Sat.RateBps != 5e6 || c.Sat.Loss != 0.01 || c.Duration != 4*time.Second || c.Sat.QueueBytes != 102400 {
		t.Errorf("after Set: %+v", c)
	}
	if q := bdpQueue(LinkParams{RateBps: 10e6, Delay: 300 * time.Millisecond}).QueueBytes; q != 750000 {
		t.Errorf("bdpQueue(10Mbit/s, 300ms) = %d B, want 750000", q)
	}
}
