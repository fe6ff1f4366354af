package manet

import (
	"fmt"
	"strings"
)

// Knobs are a campaign's scenario settings as a command line gives them:
// numbers, and durations and the area as typed ("100s", "1000x300").
// Scenario builds the Scenario they describe.
type Knobs struct {
	Preset    string // a PresetScenario name, or "" for DefaultScenario
	Transport string
	Nodes     int
	Flows     int
	Speed     float64 // m/s
	Area      string  // WIDTHxHEIGHT in metres (ParseArea)
	Time      string  // simulated time (ParseSeconds)
	Pause     string  // RandomWaypoint pause (ParseSeconds)
	Start     string  // flow start window MIN,MAX (ParseSeconds each); "" for the default
	CBRRate   string  // "" keeps the scenario's
	PktSize   int     // 0 keeps the scenario's
	NoPcap    bool
	Extra     []string
	// Protocols, Seeds and Shard choose the runs of a campaign
	// (ParseProtocolsHook, ParseSeeds, ParseShard; Shard "" runs every
	// seed); HookProtocols admits protocol names only a routing hook knows.
	Protocols, Seeds, Shard string
	HookProtocols           bool
}

// Campaign is the campaign the knobs describe, before anything is built or
// run: Scenario (given as for Scenario), Protocols, Seeds, Shard/Shards
// and HookProtocols are set; the caller sets where and how it runs
// (OutDir, Binary, Jobs, Resume, …). Errors: Scenario's *KnobError, or
// the error of ParseShard, ParseProtocolsHook or ParseSeeds, checked in
// that order.
func (k Knobs) Campaign(given func(knob string) bool) (*Campaign, error) {
	sc, err := k.Scenario(given)
	if err != nil {
		return nil, err
	}
	c := &Campaign{Scenario: sc, HookProtocols: k.HookProtocols}
	if k.Shard != "" {
		if c.Shard, c.Shards, err = ParseShard(k.Shard); err != nil {
			return nil, err
		}
	}
	if c.Protocols, err = ParseProtocolsHook(k.Protocols, k.HookProtocols); err != nil {
		return nil, err
	}
	if c.Seeds, err = ParseSeeds(k.Seeds); err != nil {
		return nil, err
	}
	return c, nil
}

// KnobError is a knob Knobs.Scenario could not read: Knob is its name
// ("time", "start", "area", …), Err why.
type KnobError struct {
	Knob string
	Err  error
}

// Error is "knob: why".
func (e *KnobError) Error() string { return e.Knob + ": " + e.Err.Error() }

// Unwrap returns why.
func (e *KnobError) Unwrap() error { return e.Err }

// Scenario starts from the preset (or the default scenario) and applies
// the knobs: without a preset every one, with a preset only those given
// reports as set on the command line (Start, CBRRate and PktSize apply
// whenever they are not empty or 0; NoPcap and Extra always). It returns
// the scenario validated (Scenario.Validate), or a *KnobError.
func (k Knobs) Scenario(given func(knob string) bool) (Scenario, error) {
	sc := DefaultScenario()
	if k.Preset != "" {
		var err error
		if sc, err = PresetScenario(k.Preset); err != nil {
			return sc, err
		}
	}
	set := func(name string) bool { return k.Preset == "" || given(name) }
	if set("transport") {
		sc.Transport = k.Transport
	}
	if set("nodes") {
		sc.Nodes = k.Nodes
	}
	if set("flows") {
		sc.Flows = k.Flows
	}
	if set("speed") {
		sc.Speed = k.Speed
	}
	sc.Pcap = !k.NoPcap
	sc.Extra = k.Extra
	var err error
	if set("area") {
		if sc.AreaX, sc.AreaY, err = ParseArea(k.Area); err != nil {
			return sc, &KnobError{"area", err}
		}
	}
	if set("time") {
		if sc.Time, err = ParseSeconds(k.Time); err != nil {
			return sc, &KnobError{"time", err}
		}
	}
	if set("pause") {
		if sc.Pause, err = ParseSeconds(k.Pause); err != nil {
			return sc, &KnobError{"pause", err}
		}
	}
	if k.Start != "" {
		lo, hi, ok := strings.Cut(k.Start, ",")
		a, errA := ParseSeconds(lo)
		b, errB := ParseSeconds(hi)
		if !ok || errA != nil || errB != nil {
			return sc, &KnobError{"start", fmt.Errorf("%q: want MIN,MAX, e.g. 0,180s", k.Start)}
		}
		sc.StartMin, sc.StartMax = a, b
	}
	if k.CBRRate != "" {
		sc.CBRRate = k.CBRRate
	}
	if k.PktSize != 0 {
		sc.PktSize = k.PktSize
	}
	return sc, sc.Validate()
}
