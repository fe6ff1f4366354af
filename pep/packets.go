package pep

import (
	"errors"
	"fmt"
	"io"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
)

// IPIDStep is the largest IP ID increase between consecutive packets of one
// direction that still counts as the same sender's counter: other packets
// the sender sends to other peers in between advance a global counter.
const IPIDStep = 64

// DirPackets are per-packet IP facts of one direction of a connection.
// Copies folded by flows are not counted.
type DirPackets struct {
	Pkts int // non-SYN packets counted in MinTTL, MaxTTL and the IP ID steps
	// SynTTL is the TTL of this side's SYN (or SYN-ACK), valid iff SynSeen.
	SynTTL  uint8
	SynSeen bool
	// MinTTL and MaxTTL are the extreme TTLs (IPv6 hop limits) of the
	// non-SYN packets; valid iff Pkts > 0.
	MinTTL, MaxTTL uint8
	// IPIDSteps counts consecutive non-SYN IPv4 packets whose IP ID grew
	// by 1..IPIDStep (mod 2^16); IPIDJumps the other pairs (backwards,
	// repeated or far ahead). IPIDZero counts packets with IP ID 0, which
	// Linux sends for DF packets of some sockets and which are left out of
	// the pairs.
	IPIDSteps, IPIDJumps, IPIDZero int

	lastID  uint16
	idValid bool
	// synID and firstID are the IPv4 IDs of the SYN (SYN-ACK) and of the
	// first non-SYN packet, valid iff synIDOK and firstIDOK (see
	// idContinues).
	synID, firstID     uint16
	synIDOK, firstIDOK bool
}

// idContinues reports whether the first non-SYN packet's IPv4 ID follows
// the SYN-ACK's by 1..IPIDStep: one IP ID counter, so one host, sent both.
// A host that sends its SYN-ACK with ID 0 (Linux, DF set) and then IDs
// from a random start shows no continuity, and the TTLs decide alone.
func (dp *DirPackets) idContinues() bool {
	if !dp.synIDOK || !dp.firstIDOK {
		return false
	}
	step := dp.firstID - dp.synID
	return step >= 1 && step <= IPIDStep
}

// PacketStats are the per-packet statistics of one connection, indexed by
// direction (flows.AtoB: packets side A sent).
type PacketStats struct {
	Conn int // connection index, as in tcpanalysis.Report.Conns
	Dir  [2]DirPackets
}

// Evidence re-reads the capture at path and collects per-direction TTL and
// IP ID statistics of connection conn (index as tcpanalysis numbers it with
// default flows options). It returns an error if the capture cannot be
// read or has no connection conn.
func Evidence(path string, conn int) (*PacketStats, error) {
	r, err := capture.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pep evidence: %w", err)
	}
	defer r.Close()
	tr := flows.NewTracker(flows.Options{})
	ps := &PacketStats{Conn: conn}
	found := false
	var s capture.Segment
	for {
		err := r.Next(&s)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("pep evidence: %w", err)
		}
		if s.ICMP != capture.ICMPNone {
			continue
		}
		p := tr.Add(&s)
		if p.Conn.Index != conn || p.Dup {
			continue
		}
		found = true
		ps.Dir[p.Dir].add(&s)
	}
	if !found {
		return nil, fmt.Errorf("pep evidence %s: no connection %d", path, conn)
	}
	return ps, nil
}

func (dp *DirPackets) add(s *capture.Segment) {
	if s.Flags.Has(capture.SYN) {
		if !dp.SynSeen {
			dp.SynTTL, dp.SynSeen = s.TTL, true
			dp.synID, dp.synIDOK = s.IPID, !s.IPv6
		}
		return
	}
	if dp.Pkts == 0 {
		dp.firstID, dp.firstIDOK = s.IPID, !s.IPv6
	}
	if dp.Pkts == 0 || s.TTL < dp.MinTTL {
		dp.MinTTL = s.TTL
	}
	if s.TTL > dp.MaxTTL {
		dp.MaxTTL = s.TTL
	}
	dp.Pkts++
	if s.IPv6 {
		return
	}
	if s.IPID == 0 {
		dp.IPIDZero++
		return
	}
	if dp.idValid {
		if step := s.IPID - dp.lastID; step >= 1 && step <= IPIDStep {
			dp.IPIDSteps++
		} else {
			dp.IPIDJumps++
		}
	}
	dp.lastID, dp.idValid = s.IPID, true
}
