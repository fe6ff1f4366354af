package manet

import (
	"slices"
	"testing"
	"time"
)

func TestParseSeeds(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"1", []int{1}, false},
		{"1-5", []int{1, 2, 3, 4, 5}, false},
		{"1-5,8", []int{1, 2, 3, 4, 5, 8}, false},
		{" 8, 2-3 ,3", []int{2, 3, 8}, false},
		{"7-7", []int{7}, false},
		{"", nil, true},
		{"0", nil, true},
		{"5-1", nil, true},
		{"1,,2", nil, true},
		{"a-3", nil, true},
		{"-3", nil, true},
		{"1-2-3", nil, true},
		{"1-1000000", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseSeeds(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("ParseSeeds(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseArea(t *testing.T) {
	tests := []struct {
		in      string
		x, y    float64
		wantErr bool
	}{
		{"1000x300", 1000, 300, false},
		{"1500X300", 1500, 300, false},
		{"300×300", 300, 300, false},
		{" 250.5 x 100 ", 250.5, 100, false},
		{"1000", 0, 0, true},
		{"0x300", 0, 0, true},
		{"-5x300", 0, 0, true},
		{"axb", 0, 0, true},
		{"NaNx3", 0, 0, true},
		{"1000x300x2", 0, 0, true},
	}
	for _, tt := range tests {
		x, y, err := ParseArea(tt.in)
		if (err != nil) != tt.wantErr || x != tt.x || y != tt.y {
			t.Errorf("ParseArea(%q) = %v, %v, %v; want %v, %v, error %v", tt.in, x, y, err, tt.x, tt.y, tt.wantErr)
		}
	}
}

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"100s", 100 * time.Second, false},
		{"100", 100 * time.Second, false},
		{"2.5", 2500 * time.Millisecond, false},
		{"1m30s", 90 * time.Second, false},
		{"500ms", 500 * time.Millisecond, false},
		{"0", 0, false},
		{"", 0, true},
		{"-1s", 0, true},
		{"-3", 0, true},
		{"ten", 0, true},
		{"1e9", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSeconds(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseProtocols(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"aodv,olsr,dsdv", []string{"aodv", "olsr", "dsdv"}, false},
		{"all", []string{"anthocnet", "aodv", "olsr", "dsdv"}, false},
		{"OLSR, aodv,olsr", []string{"olsr", "aodv"}, false},
		{"aodv,anthocnet", []string{"aodv", "anthocnet"}, false},
		{"aodv,myrouting", nil, true},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseProtocols(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("ParseProtocols(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
