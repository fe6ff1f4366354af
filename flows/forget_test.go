package flows

import (
	"testing"
)

// TestForget: after Forget, a segment on the 4-tuple opens a new connection
// with the next index (not marked reused: the tracker no longer knows the
// old one); with NoList the tracker lists nothing.
func TestForget(t *testing.T) {
	for _, noList := range []bool{false, true} {
		tr := NewTracker(Options{WScale: -1, NoList: noList})
		s := seg(cli, srv, fS, 1000, 0, 0)
		s.Time = at(0)
		p := tr.Add(&s)
		old := p.Conn
		a := seg(srv, cli, fSA, 5000, 1001, 0)
		a.Time = at(1)
		if q := tr.Add(&a); q.Conn != old || tr.Live() != 1 {
			t.Fatalf("SYN-ACK went to conn %d, live %d", q.Conn.Index, tr.Live())
		}
		tr.Forget(old)
		if tr.Live() != 0 {
			t.Fatalf("live %d after Forget", tr.Live())
		}
		late := seg(cli, srv, fA, 1001, 5001, 0)
		late.Time = at(2)
		q := tr.Add(&late)
		if !q.New || q.Conn == old || q.Conn.Index != 1 || q.Conn.Reused {
			t.Errorf("noList %v: late ACK: new %v index %d reused %v; want a new conn 1, not reused", noList, q.New, q.Conn.Index, q.Conn.Reused)
		}
		if c, _, ok := tr.Lookup(&late); !ok || c != q.Conn {
			t.Errorf("Lookup after Forget: %v %v", c, ok)
		}
		if n := len(tr.Conns()); noList && n != 0 || !noList && n != 2 {
			t.Errorf("noList %v: Conns lists %d", noList, n)
		}
	}
}
