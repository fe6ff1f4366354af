package sat

import (
	"math/rand/v2"
	"time"
)

// LinkParams describes one direction of an emulated link.
type LinkParams struct {
	// RateBps is the serialisation rate in bit/s; 0 means unlimited.
	RateBps int64 `json:"rate_bps"`
	// Delay is the fixed one-way propagation delay added after serialisation.
	Delay time.Duration `json:"delay_ns"`
	// Jitter is the half-width of a uniform random term added to Delay
	// (Delay ± Jitter). Packets are never reordered: a packet is delivered no
	// earlier than the one before it.
	Jitter time.Duration `json:"jitter_ns"`
	// Loss is the Bernoulli loss probability (0..1) applied after
	// serialisation, so a lost frame still uses link capacity.
	Loss float64 `json:"loss"`
	// QueueBytes bounds the bytes waiting for serialisation (tail drop);
	// 0 means unbounded.
	QueueBytes int `json:"queue_bytes"`
}

// Verdict is what Link.Admit decided for one frame.
type Verdict uint8

const (
	// Deliver means the frame leaves the link at the returned time.
	Deliver Verdict = iota
	// DropQueue means the frame found the queue full (tail drop).
	DropQueue
	// DropLoss means the frame was serialised and then lost at random.
	DropLoss
)

// String returns "deliver", "drop-queue" or "drop-loss".
func (v Verdict) String() string {
	switch v {
	case Deliver:
		return "deliver"
	case DropQueue:
		return "drop-queue"
	case DropLoss:
		return "drop-loss"
	}
	return "verdict?"
}

// LinkStats counts what a Link did.
type LinkStats struct {
	Frames        int64 `json:"frames"`          // frames offered to Admit
	Bytes         int64 `json:"bytes"`           // bytes offered to Admit
	DropQueue     int64 `json:"drop_queue"`      // frames tail-dropped
	DropLoss      int64 `json:"drop_loss"`       // frames lost at random
	MaxQueueBytes int   `json:"max_queue_bytes"` // largest queue seen, bytes
	Delivered     int64 `json:"delivered"`       // frames scheduled for delivery
}

// Link is the pure model of one link direction: a byte-bounded FIFO
// drained at RateBps, then Delay (± Jitter), then random loss. It reads no
// clock: callers pass the arrival time, so tests can drive it with a fake
// clock. A Link is not safe for concurrent use.
type Link struct {
	p   LinkParams
	rng *rand.Rand

	busyUntil time.Time // end of serialisation of the last admitted frame
	lastOut   time.Time // delivery time of the last delivered frame
	inQueue   []queued  // frames whose serialisation has not finished, FIFO
	qBytes    int       // sum of inQueue sizes
	Stats     LinkStats // counters since NewLink
}

type queued struct {
	done time.Time // serialisation ends
	size int
}

// NewLink returns a Link with parameters p whose random decisions (loss,
// jitter) come from a PRNG seeded with seed.
func NewLink(p LinkParams, seed uint64) *Link {
	return &Link{p: p, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Params returns the link's parameters.
func (l *Link) Params() LinkParams { return l.p }

// SerTime returns how long size bytes take to serialise at the link rate
// (0 if the rate is unlimited).
func (l *Link) SerTime(size int) time.Duration {
	if l.p.RateBps <= 0 {
		return 0
	}
	return time.Duration(int64(size) * 8 * int64(time.Second) / l.p.RateBps)
}

// QueueBytes returns the bytes still waiting for (or in) serialisation at now.
func (l *Link) QueueBytes(now time.Time) int {
	l.expire(now)
	return l.qBytes
}

func (l *Link) expire(now time.Time) {
	i := 0
	for i < len(l.inQueue) && !l.inQueue[i].done.After(now) {
		l.qBytes -= l.inQueue[i].size
		i++
	}
	if i > 0 {
		l.inQueue = append(l.inQueue[:0], l.inQueue[i:]...)
	}
}

// Admit offers a frame of size bytes arriving at now. It returns the verdict
// and, for Deliver, the time the frame leaves the far end of the link.
// Delivery times are non-decreasing across calls (FIFO).
func (l *Link) Admit(now time.Time, size int) (time.Time, Verdict) {
	l.Stats.Frames++
	l.Stats.Bytes += int64(size)
	l.expire(now)
	if l.p.QueueBytes > 0 && l.qBytes+size > l.p.QueueBytes && l.qBytes > 0 {
		l.Stats.DropQueue++
		return time.Time{}, DropQueue
	}
	start := now
	if l.busyUntil.After(start) {
		start = l.busyUntil
	}
	done := start.Add(l.SerTime(size))
	l.busyUntil = done
	if l.p.RateBps > 0 {
		l.inQueue = append(l.inQueue, queued{done, size})
		l.qBytes += size
		if l.qBytes > l.Stats.MaxQueueBytes {
			l.Stats.MaxQueueBytes = l.qBytes
		}
	}
	if l.p.Loss > 0 && l.rng.Float64() < l.p.Loss {
		l.Stats.DropLoss++
		return time.Time{}, DropLoss
	}
	d := l.p.Delay
	if l.p.Jitter > 0 {
		d += time.Duration(l.rng.Int64N(int64(2*l.p.Jitter)+1)) - l.p.Jitter
		if d < 0 {
			d = 0
		}
	}
	out := done.Add(d)
	if out.Before(l.lastOut) {
		out = l.lastOut
	}
	l.lastOut = out
	l.Stats.Delivered++
	return out, Deliver
}
