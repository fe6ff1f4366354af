package manet

import (
	"slices"
	"testing"
)

// TestKnobsCampaign: the knobs' campaign holds the parsed protocols, seeds
// and shard; a bad shard, protocol or seed list is refused.
func TestKnobsCampaign(t *testing.T) {
	def := DefaultScenario()
	k := Knobs{Transport: def.Transport, Nodes: def.Nodes, Flows: def.Flows, Speed: def.Speed, Area: "1000x300", Time: "100s", Pause: "30s",
		Protocols: "aodv,olsr", Seeds: "1-3,8", Shard: "2/2"}
	c, err := k.Campaign(func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Protocols, []string{"aodv", "olsr"}) || !slices.Equal(c.Seeds, []int{1, 2, 3, 8}) || c.Shard != 1 || c.Shards != 2 {
		t.Errorf("protocols %v, seeds %v, shard %d/%d", c.Protocols, c.Seeds, c.Shard, c.Shards)
	}
	if got := len(c.Runs()); got != 4 { // seeds 2 and 8, two protocols each
		t.Errorf("%d runs, want 4", got)
	}
	for _, bad := range []Knobs{{Shard: "3/2"}, {Protocols: "nosuch"}, {Protocols: "aodv", Seeds: "x"}} {
		b := k
		b.Shard, b.Protocols, b.Seeds = bad.Shard, bad.Protocols, bad.Seeds
		if b.Protocols == "" {
			b.Protocols = "aodv"
		}
		if b.Seeds == "" {
			b.Seeds = "1"
		}
		if _, err := b.Campaign(func(string) bool { return false }); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
