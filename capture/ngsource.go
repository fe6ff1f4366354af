package capture

import (
	"fmt"
	"strings"

	"github.com/gopacket/gopacket"
)

// ngRecord is one pcapng packet as Reader.next takes it: its data (valid
// until the next record, or its own copy when read ahead), capture info,
// link type, time (if_tsresol corrected; for a Simple Packet Block, the
// time it is given), whether that time is in range, and what the guard
// said of its block (ngRec).
type ngRecord struct {
	data    []byte
	ci      gopacket.CaptureInfo
	lt      int
	ts      Timestamp
	inRange bool
	spb     bool
	pre     int64 // numbered non-packet blocks (custom, systemd journal) just before it
}

// maxSPBAhead bounds how far ngNext reads ahead for the time of a Simple
// Packet Block that comes before any timestamped packet: records, and
// bytes of their data held.
const (
	maxSPBAhead      = PrescanFrames
	maxSPBAheadBytes = 16 << 20
)

// ngReadOne reads the next pcapng packet into p (its data valid until the
// next read): its link type and time from its interface, as it is when
// the block is read (a later section header redefines the interfaces). A
// Simple Packet Block has no time (pcapgo gives it the zero time): it gets
// the time of the latest packet read before it that has one, and is in
// range (before any such packet, ngNext sets its time). The guard's fatal
// error replaces pcapgo's wrapping of it.
func (r *Reader) ngReadOne(p *ngRecord) error {
	data, ci, err := r.ng.ZeroCopyReadPacketData()
	if err != nil {
		if r.guard != nil && r.guard.fatal != nil {
			return r.guard.fatal
		}
		return err
	}
	var rec ngRec
	if r.guard != nil {
		rec = r.guard.queue.pop()
	}
	var bin uint8
	*p = ngRecord{data: data, ci: ci, spb: rec.spb, pre: rec.pre}
	p.lt, bin = r.ifaceInfo(ci.InterfaceIndex)
	if p.spb {
		p.ts, p.inRange = r.ngLast, true
		return nil
	}
	if p.inRange = timeInRange(ci.Timestamp); p.inRange {
		p.ts = Timestamp(ci.Timestamp.UnixNano())
		if bin != 0 {
			p.ts = binaryTime(p.ts, bin)
		}
		r.ngLast, r.ngHaveTime = p.ts, true
	}
	return nil
}

// ngNext returns the next pcapng packet (valid until the next call). A
// Simple Packet Block before any packet with a time is given the time of
// the first packet after it that has one: ngNext reads ahead to it (at
// most maxSPBAhead records, maxSPBAheadBytes of data, copied), holding the
// records read; without one there, such blocks get time 0, the Unix
// epoch. The warning (summarise) says which.
func (r *Reader) ngNext() (*ngRecord, error) {
	if r.ngAt < len(r.ngPend) {
		r.ngAt++
		return &r.ngPend[r.ngAt-1], nil
	}
	if r.ngPendErr != nil {
		err := r.ngPendErr
		r.ngPendErr = nil
		return nil, err
	}
	p := &r.ngCur
	if err := r.ngReadOne(p); err != nil {
		return nil, err
	}
	if !p.spb || r.ngHaveTime {
		return p, nil
	}
	// A Simple Packet Block before any time: read ahead to one.
	held := func(q *ngRecord) {
		c := *q
		c.data = append([]byte(nil), q.data...)
		r.ngPend = append(r.ngPend, c)
	}
	r.ngPend, r.ngAt = r.ngPend[:0], 0
	held(p)
	size := len(p.data)
	var at Timestamp
	found := false
	for len(r.ngPend) < maxSPBAhead && size < maxSPBAheadBytes {
		var q ngRecord
		if err := r.ngReadOne(&q); err != nil {
			r.ngPendErr = err
			break
		}
		held(&q)
		size += len(q.data)
		if !q.spb && q.inRange {
			at, found = q.ts, true
			break
		}
	}
	for i := range r.ngPend {
		if q := &r.ngPend[i]; q.spb {
			q.ts = at
			if found {
				r.spbAhead++
			} else {
				r.spbEpoch++
			}
		}
	}
	if found {
		// The blocks after the first timestamped one borrow from it
		// as they are read.
		r.ngLast, r.ngHaveTime = at, true
	}
	r.ngAt = 1
	return &r.ngPend[0], nil
}

// countRecords numbers n blocks that Wireshark numbers as frames but that
// hold no packet (pcapng custom and systemd journal blocks): frames
// without IP (Stats.NonIP), with no time, so that the frame numbers of
// the packets after them are Wireshark's. A filter (a frame hook) sees no
// such block: they are counted as filtered out.
func (r *Reader) countRecords(n int64) {
	if n == 0 {
		return
	}
	if r.hook != nil {
		r.stats.Filtered += n
		if r.keepNumbers {
			r.frame += n
		}
		return
	}
	r.frame += n
	r.stats.Frames += n
	r.stats.NonIP += n
}

// spbWarning is the one warning about the Simple Packet Blocks read ("" if
// none): how many, the first, and which time each was given.
func (r *Reader) spbWarning() string {
	n := r.stats.SimplePackets
	if n == 0 {
		return ""
	}
	what := fmt.Sprintf("frame %d is a pcapng Simple Packet Block, which carries no timestamp", r.spbFirst)
	if n > 1 {
		what = fmt.Sprintf("%d frames are pcapng Simple Packet Blocks (the first is frame %d), which carry no timestamp", n, r.spbFirst)
	}
	type part struct {
		k   int64
		how string
	}
	var parts []part
	for _, p := range []part{
		{n - r.spbAhead - r.spbEpoch, "the time of the latest frame before it that has one"},
		{r.spbAhead, "the time of the first frame after it that has one (no frame before it has one)"},
		{r.spbEpoch, fmt.Sprintf("time 0, 1970-01-01 00:00:00 (no frame before it, nor within %d frames after it, has one)", maxSPBAhead)},
	} {
		if p.k > 0 {
			parts = append(parts, p)
		}
	}
	how := "given " + parts[0].how
	switch {
	case len(parts) > 1:
		var b strings.Builder
		for i, p := range parts {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%d %s", p.k, p.how)
		}
		how = "given: " + b.String()
	case n > 1:
		how = "each is " + how
	}
	return fmt.Sprintf("%s: %s; %s: RTT samples, durations and rates that involve them are unreliable", r.name, what, how)
}
