package flows

import (
	"testing"

	"github.com/tcpviz/tcpviz/capture"
)

// TestForget: after Forget, a late non-SYN segment on the 4-tuple is no
// connection (Packet.Late, counted in Tracker.Late) while the 4-tuple is
// remembered; a new SYN opens a new connection with the next index (not
// marked reused: the tracker no longer knows the old one), and so does a
// late segment more than goneAge later. With NoList the tracker lists
// nothing.
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
		if q := tr.Add(&late); !q.Late || q.Conn != nil || q.New || tr.Late != 1 {
			t.Fatalf("noList %v: late ACK: late %v conn %v new %v, Late %d; want late, no conn", noList, q.Late, q.Conn, q.New, tr.Late)
		}
		syn := seg(cli, srv, fS, 7000, 0, 0)
		syn.Time = at(3)
		q := tr.Add(&syn)
		if !q.New || q.Conn == old || q.Conn.Index != 1 || q.Conn.Reused {
			t.Errorf("noList %v: new SYN: new %v index %d reused %v; want a new conn 1, not reused", noList, q.New, q.Conn.Index, q.Conn.Reused)
		}
		if c, _, ok := tr.Lookup(&syn); !ok || c != q.Conn {
			t.Errorf("Lookup after Forget: %v %v", c, ok)
		}
		tr.Forget(q.Conn)
		later := seg(cli, srv, fA, 7001, 5001, 0)
		later.Time = at(3) + capture.Timestamp(goneAge) + 1
		if r := tr.Add(&later); r.Late || !r.New || r.Conn.Index != 2 {
			t.Errorf("noList %v: segment %v after the close: late %v new %v; want a new conn 2", noList, goneAge, r.Late, r.New)
		}
		if n := len(tr.Conns()); noList && n != 0 || !noList && n != 3 {
			t.Errorf("noList %v: Conns lists %d", noList, n)
		}
	}
}
