package query

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/textcol"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	ErrDirection = errors.New("unknown direction")
	ErrRef       = errors.New("unknown reference point")
	ErrRange     = errors.New("bad time range")
	ErrSelection = errors.New("bad selection")
	ErrNoMatch   = errors.New("no TCP connection matches")
	ErrNoConn    = errors.New("no such connection")
	ErrMetric    = errors.New("unknown metric")
	ErrInterval  = errors.New("bad interval")
)

// Dir chooses the data direction of a connection. Side a is the SYN sender
// (or the first packet's sender when no SYN was captured).
type Dir uint8

const (
	// Auto is the direction that delivered more bytes (DataDirection); for
	// tables that list directions, both.
	Auto Dir = iota
	AB       // data from a to b
	BA       // data from b to a
)

// String gives the canonical name: auto, ab or ba.
func (d Dir) String() string {
	switch d {
	case AB:
		return "ab"
	case BA:
		return "ba"
	}
	return "auto"
}

// DirNames lists the names ParseDir accepts, canonical first.
const DirNames = "ab (a2b), ba (b2a) or auto"

// ParseDir reads a direction, case-insensitively: "ab" or "a2b", "ba" or
// "b2a", "auto" or "". Anything else is an error wrapping ErrDirection.
func ParseDir(s string) (Dir, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Auto, nil
	case "ab", "a2b":
		return AB, nil
	case "ba", "b2a":
		return BA, nil
	}
	return Auto, fmt.Errorf("%w %q: want %s", ErrDirection, s, DirNames)
}

// Of returns the data direction d chooses on connection r.
func (d Dir) Of(r *tcpanalysis.ConnResult) flows.Direction {
	switch d {
	case AB:
		return flows.AtoB
	case BA:
		return flows.BtoA
	}
	return DataDirection(r)
}

// Dirs returns the directions a table lists: the chosen one, or both for
// Auto.
func (d Dir) Dirs() []flows.Direction {
	switch d {
	case AB:
		return []flows.Direction{flows.AtoB}
	case BA:
		return []flows.Direction{flows.BtoA}
	}
	return []flows.Direction{flows.AtoB, flows.BtoA}
}

// DataDirection is the one "auto direction" rule: the direction that
// delivered more goodput bytes (DirStats.DeliveredBytes,
// docs/metrics.md#goodput), then the one that sent more payload bytes, then
// a → b. A direction whose delivery the capture cannot show — no ACK
// covered any of it and no packet of its receiver was captured (a capture
// of one direction: a filter on the source, an asymmetric return path) —
// counts with its payload bytes instead, the most it can have delivered:
// its delivered bytes read 0 there, which had made a 725 MB direction lose
// to the other's 1 byte. A relay that saw only the ACKs keeps their
// direction's delivered bytes.
func DataDirection(r *tcpanalysis.ConnResult) flows.Direction {
	a, b := &r.Dir[flows.AtoB], &r.Dir[flows.BtoA]
	va, vb := a.DeliveredBytes, b.DeliveredBytes
	if va == 0 && b.Pkts == 0 {
		va = a.Bytes
	}
	if vb == 0 && a.Pkts == 0 {
		vb = b.Bytes
	}
	if vb != va {
		if vb > va {
			return flows.BtoA
		}
		return flows.AtoB
	}
	if b.Bytes > a.Bytes {
		return flows.BtoA
	}
	return flows.AtoB
}

// Ref is the reference point times are measured from.
type Ref uint8

const (
	// RefSYN is the connection's first packet (the SYN when captured).
	RefSYN Ref = iota
	// RefData is the direction's first data segment.
	RefData
	// RefBulk is the direction's first segment with at least 512 payload
	// bytes (after a short request or iperf3's 37-byte cookie), else RefData.
	RefBulk
)

// String gives the canonical name: syn, data or bulk.
func (r Ref) String() string {
	switch r {
	case RefData:
		return "data"
	case RefBulk:
		return "bulk"
	}
	return "syn"
}

// Describe names the reference point in words, for tables and axis labels.
func (r Ref) Describe() string {
	switch r {
	case RefData:
		return "the first data segment"
	case RefBulk:
		return "the first bulk segment"
	}
	return "the connection's first packet"
}

// ParseRef reads a reference point, case-insensitively: syn, data or bulk.
func ParseRef(s string) (Ref, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "syn":
		return RefSYN, nil
	case "data":
		return RefData, nil
	case "bulk":
		return RefBulk, nil
	}
	return RefSYN, fmt.Errorf("%w %q: want syn, data or bulk", ErrRef, s)
}

// Time returns the reference time of connection r in direction d (see
// Resolve).
func (r Ref) Time(c *tcpanalysis.ConnResult, d flows.Direction) capture.Timestamp {
	t, _ := r.Resolve(c, d)
	return t
}

// Resolve returns the reference time of connection c in direction d and
// the reference point actually used: a reference point is per connection
// and direction, and when the one asked for does not exist there, the next
// one does — RefBulk falls back to RefData when d sent no segment of at
// least tcpanalysis.BulkPayload bytes, RefData to RefSYN when d sent no
// data (docs/metrics.md#slow-start).
func (r Ref) Resolve(c *tcpanalysis.ConnResult, d flows.Direction) (capture.Timestamp, Ref) {
	if r == RefBulk {
		if tcpanalysis.HasBulk(c, d) {
			return tcpanalysis.BulkStart(c, d), RefBulk
		}
		r = RefData
	}
	if r == RefData && c.Dir[d].FirstData != 0 {
		return c.Dir[d].FirstData, RefData
	}
	return c.Conn.First, RefSYN
}

// Selection says what to analyse in one capture. Start from All(): the
// zero value selects connection 0.
type Selection struct {
	// Conn is a connection index (as 'tcpviz flows' lists them, tshark's
	// tcp.stream); -1 for any.
	Conn int
	// Port, when not 0, keeps connections with this port on either side.
	Port uint16
	// Host, when valid, keeps connections with this address on either side.
	Host netip.Addr
	// Dir is the data direction.
	Dir Dir
	// Ref is the point From and To count from.
	Ref Ref
	// From and To limit series and samples to [From, To] after Ref; To 0
	// means the end of the connection.
	From, To time.Duration
}

// All selects every connection, direction Auto, times from the
// connection's first packet, no time limit.
func All() Selection { return Selection{Conn: -1} }

// Validate checks the selection without reading any capture: nil, or an
// error wrapping ErrSelection, ErrDirection, ErrRef or ErrRange.
func (s Selection) Validate() error {
	if s.Conn < -1 {
		return fmt.Errorf("%w: connection indexes start at 0", ErrSelection)
	}
	if s.Dir > BA {
		return fmt.Errorf("%w: direction %d", ErrDirection, s.Dir)
	}
	if s.Ref > RefBulk {
		return fmt.Errorf("%w: %d", ErrRef, s.Ref)
	}
	if s.From < 0 || s.To < 0 || (s.To > 0 && s.To <= s.From) {
		return fmt.Errorf("%w: want 0 ≤ from < to (to 0: the end)", ErrRange)
	}
	return nil
}

// MinInterval is the narrowest goodput/throughput interval: the resolution
// of a pcap timestamp (pcapng's finer ones do not make a TCP rate over less
// than a microsecond mean anything).
const MinInterval = time.Microsecond

// CheckInterval checks a goodput/throughput interval width w for this
// selection without reading any capture: 0 (the default, NiceInterval) or
// at least MinInterval, and, when To bounds the window, at most
// tcpanalysis.MaxBins intervals in [From, To] (the same limit a connection
// longer than the window meets after reading). Errors wrap ErrInterval.
func (s Selection) CheckInterval(w time.Duration) error {
	if w == 0 {
		return nil
	}
	if w < MinInterval {
		return fmt.Errorf("%w: want 0 (the default) or at least %v", ErrInterval, MinInterval)
	}
	if n := int64((s.To - s.From) / w); s.To > 0 && n >= tcpanalysis.MaxBins {
		return fmt.Errorf("%w: the window from %v to %v takes %d intervals, at most %d allowed; want at least %v", ErrInterval, s.From, s.To, n, tcpanalysis.MaxBins-1, (s.To-s.From)/(tcpanalysis.MaxBins-1)+1)
	}
	return nil
}

// ParseHost reads an address for Selection.Host; "" gives the zero Addr.
func ParseHost(s string) (netip.Addr, error) {
	if s == "" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return a, fmt.Errorf("%w: host %q is not an IP address", ErrSelection, s)
	}
	return a.Unmap(), nil
}

// Filtered reports whether the selection narrows the connections (Conn,
// Port or Host set).
func (s Selection) Filtered() bool { return s.Conn >= 0 || s.Port != 0 || s.Host.IsValid() }

// Match is the one matching rule: r matches when every criterion that is
// set holds — its index is Conn, Port is one of its ports, Host one of its
// addresses.
func (s Selection) Match(r *tcpanalysis.ConnResult) bool {
	k := r.Conn.Key
	if s.Conn >= 0 && r.Conn.Index != s.Conn {
		return false
	}
	if s.Port != 0 && k.Lo.Port() != s.Port && k.Hi.Port() != s.Port {
		return false
	}
	if s.Host.IsValid() && k.Lo.Addr().Unmap() != s.Host && k.Hi.Addr().Unmap() != s.Host {
		return false
	}
	return true
}

// Matching returns the connections of rep that Match, in index order.
func (s Selection) Matching(rep *tcpanalysis.Report) []*tcpanalysis.ConnResult {
	var out []*tcpanalysis.ConnResult
	for _, r := range rep.Conns {
		if s.Match(r) {
			out = append(out, r)
		}
	}
	return out
}

// PayloadBytes is the size Pick compares: payload bytes in both
// directions, retransmissions included.
func PayloadBytes(r *tcpanalysis.ConnResult) int64 { return r.Dir[0].Bytes + r.Dir[1].Bytes }

// Pick is the one "pick the largest" rule: among the connections that
// Match, the one with the most payload bytes (PayloadBytes), the first on
// a tie. Errors wrap ErrNoConn (Conn past the last index) or ErrNoMatch.
func (s Selection) Pick(rep *tcpanalysis.Report) (*tcpanalysis.ConnResult, error) {
	if s.Conn >= len(rep.Conns) {
		return nil, fmt.Errorf("%w: %s has %s, no connection %d", ErrNoConn, rep.File, textcol.Count(len(rep.Conns), "connection"), s.Conn)
	}
	var best *tcpanalysis.ConnResult
	for _, r := range rep.Conns {
		if s.Match(r) && (best == nil || PayloadBytes(r) > PayloadBytes(best)) {
			best = r
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%w in %s (%s)", ErrNoMatch, rep.File, s.describe())
	}
	return best, nil
}

// InWindow reports whether dt, a time since a reference point, lies in
// the window [from, to] after it, both ends included; to ≤ 0 means no end
// (the end of the connection). It is the one "in the window" rule of every
// series, row, table and figure (docs/schema.md#selection).
func InWindow(dt, from, to time.Duration) bool { return dt >= from && (to <= 0 || dt <= to) }

// Within reports whether dt, a time since the reference point, lies in the
// selected window [From, To] (InWindow).
func (s Selection) Within(dt time.Duration) bool { return InWindow(dt, s.From, s.To) }

// InRange reports whether time t lies in [From, To] after the reference
// time ref (View.RefOf of the connection t belongs to): Within(t - ref).
func (s Selection) InRange(t, ref capture.Timestamp) bool { return s.Within(t.Sub(ref)) }

func (s Selection) describe() string {
	var p []string
	if s.Conn >= 0 {
		p = append(p, fmt.Sprintf("connection %d", s.Conn))
	}
	if s.Port != 0 {
		p = append(p, fmt.Sprintf("port %d", s.Port))
	}
	if s.Host.IsValid() {
		p = append(p, "host "+s.Host.String())
	}
	if len(p) == 0 {
		return "any connection"
	}
	return strings.Join(p, ", ")
}
