package manet

import (
	"errors"
	"testing"
	"time"
)

// TestKnobs: with a preset only the knobs given override it; without one
// every knob applies; a wrong knob is named in a *KnobError.
func TestKnobs(t *testing.T) {
	given := func(n string) bool { return n == "time" || n == "nodes" }
	sc, err := Knobs{Preset: "paper-base", Nodes: 30, Time: "80s", Flows: 99, Area: "1x1"}.Scenario(given)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Nodes != 30 || sc.Time != 80*time.Second || sc.Flows != 20 || sc.AreaX != 1500 || sc.Preset != "paper-base" {
		t.Errorf("paper-base with --nodes 30 --time 80s: %+v", sc)
	}
	d := DefaultScenario()
	sc, err = Knobs{Transport: "tcp", Nodes: 8, Flows: 2, Speed: 5, Area: "300x300", Time: "15", Pause: "0", Start: "1,2s"}.Scenario(func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if sc.Nodes != 8 || sc.AreaX != 300 || sc.Time != 15*time.Second || sc.StartMin != time.Second || sc.StartMax != 2*time.Second || sc.Pcap != d.Pcap {
		t.Errorf("no preset: %+v", sc)
	}
	var ke *KnobError
	if _, err := (Knobs{Preset: "paper-base-udp", Start: "5"}).Scenario(func(string) bool { return false }); !errors.As(err, &ke) || ke.Knob != "start" {
		t.Errorf("start 5: %v; want a KnobError for start", err)
	}
}
