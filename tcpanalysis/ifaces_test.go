package tcpanalysis

import (
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestIfacesFilter: a pcapng with one connection on each of two interfaces
// (both sides of a PEP in one file) analysed per interface.
func TestIfacesFilter(t *testing.T) {
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	i0 := f.AddInterface(pcaptest.LinkEthernet, 0, 0, 0)
	i1 := f.AddInterface(pcaptest.LinkEthernet, 0, 0, 0)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for iface, port := range map[int]uint16{i0: 1000, i1: 2000} {
		c := pcaptest.NewConn(netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), port), netip.MustParseAddrPort("10.0.0.2:80"), 1, 1)
		for _, s := range c.Handshake(t0, 10*time.Millisecond) {
			f.Add(s.T, iface, pcaptest.Ethernet(s.IP()))
		}
	}
	path := filepath.Join(t.TempDir(), "both.pcapng")
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ifaces []int
		ports  []uint16
	}{{nil, []uint16{1000, 2000}}, {[]int{0}, []uint16{1000}}, {[]int{1}, []uint16{2000}}} {
		rep, err := AnalyzeFile(path, Options{Ifaces: tt.ifaces})
		if err != nil {
			t.Fatal(err)
		}
		var got []uint16
		for _, r := range rep.Conns {
			got = append(got, r.Conn.Half[0].Addr.Port())
		}
		if len(got) != len(tt.ports) {
			t.Fatalf("Ifaces %v: client ports %v, want %v", tt.ifaces, got, tt.ports)
		}
		for i := range got {
			if got[i] != tt.ports[i] && !(len(got) == 2 && got[1-i] == tt.ports[i]) {
				t.Errorf("Ifaces %v: client ports %v, want %v", tt.ifaces, got, tt.ports)
			}
		}
	}
}
