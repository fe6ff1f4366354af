package sat

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

func TestLinkDelayOnly(t *testing.T) {
	l := NewLink(LinkParams{Delay: 300 * time.Millisecond}, 1)
	for _, at := range []time.Duration{0, ms(1), ms(1), ms(50)} {
		got, v := l.Admit(t0.Add(at), 1514)
		if v != Deliver || got.Sub(t0) != at+300*time.Millisecond {
			t.Errorf("Admit(t0+%v) = t0+%v %v, want t0+%v deliver", at, got.Sub(t0), v, at+300*time.Millisecond)
		}
	}
}

func TestLinkSerialisation(t *testing.T) {
	// 1250 B at 10 Mbit/s take exactly 1 ms.
	l := NewLink(LinkParams{RateBps: 10e6, Delay: 10 * time.Millisecond}, 1)
	if got := l.SerTime(1250); got != time.Millisecond {
		t.Fatalf("SerTime(1250) = %v, want 1ms", got)
	}
	tests := []struct {
		at, want time.Duration // arrival and delivery, relative to t0
	}{
		{0, ms(11)},        // idle link: 1 ms serialisation + 10 ms
		{0, ms(12)},        // waits behind the first
		{ms(0.5), ms(13)},  // still queued
		{ms(20), ms(31)},   // link idle again
		{ms(20.5), ms(32)}, // behind the previous one
	}
	for i, tt := range tests {
		got, v := l.Admit(t0.Add(tt.at), 1250)
		if v != Deliver || got.Sub(t0) != tt.want {
			t.Errorf("frame %d: Admit(t0+%v) = t0+%v %v, want t0+%v", i, tt.at, got.Sub(t0), v, tt.want)
		}
	}
}

func TestLinkTailDrop(t *testing.T) {
	l := NewLink(LinkParams{RateBps: 8e6, QueueBytes: 3000}, 1) // 1000 B = 1 ms
	var verdicts []Verdict
	for range 5 {
		_, v := l.Admit(t0, 1000)
		verdicts = append(verdicts, v)
	}
	want := []Verdict{Deliver, Deliver, Deliver, DropQueue, DropQueue}
	for i := range want {
		if verdicts[i] != want[i] {
			t.Errorf("frame %d at t0: %v, want %v", i, verdicts[i], want[i])
		}
	}
	if q := l.QueueBytes(t0); q != 3000 {
		t.Errorf("QueueBytes(t0) = %d, want 3000", q)
	}
	// After 1 ms the first frame has left the queue: room for one more.
	if q := l.QueueBytes(t0.Add(ms(1))); q != 2000 {
		t.Errorf("QueueBytes(t0+1ms) = %d, want 2000", q)
	}
	if at, v := l.Admit(t0.Add(ms(1)), 1000); v != Deliver || at.Sub(t0) != ms(4) {
		t.Errorf("Admit(t0+1ms) = t0+%v %v, want t0+4ms deliver", at.Sub(t0), v)
	}
	if l.Stats.DropQueue != 2 || l.Stats.MaxQueueBytes != 3000 {
		t.Errorf("Stats = %+v, want DropQueue 2, MaxQueueBytes 3000", l.Stats)
	}
	// A frame larger than the whole queue still passes an empty link.
	l2 := NewLink(LinkParams{RateBps: 8e6, QueueBytes: 100}, 1)
	if _, v := l2.Admit(t0, 1500); v != Deliver {
		t.Errorf("oversized frame on empty link: %v, want deliver", v)
	}
}

func TestLinkLoss(t *testing.T) {
	const n = 100000
	count := func(seed uint64) (lost int, pattern []Verdict) {
		l := NewLink(LinkParams{Loss: 0.1, RateBps: 1e9}, seed)
		for i := range n {
			_, v := l.Admit(t0.Add(time.Duration(i)*time.Millisecond), 100)
			if v == DropLoss {
				lost++
			}
			if i < 64 {
				pattern = append(pattern, v)
			}
		}
		return lost, pattern
	}
	lost, p1 := count(7)
	if frac := float64(lost) / n; math.Abs(frac-0.1) > 0.005 {
		t.Errorf("loss fraction = %.4f, want 0.1 ± 0.005", frac)
	}
	_, p2 := count(7)
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("same seed, frame %d: %v then %v; want deterministic", i, p1[i], p2[i])
		}
	}
	// Lost frames still occupied the link: the next frame waits for them.
	l := NewLink(LinkParams{Loss: 0.999999, RateBps: 8e6}, 1)
	l.Admit(t0, 1000)
	l.p.Loss = 0
	if at, _ := l.Admit(t0, 1000); at.Sub(t0) != ms(2) {
		t.Errorf("frame behind a lost frame delivered at t0+%v, want t0+2ms", at.Sub(t0))
	}
}

func TestLinkJitterKeepsOrder(t *testing.T) {
	p := LinkParams{Delay: 300 * time.Millisecond, Jitter: 20 * time.Millisecond}
	l := NewLink(p, 3)
	var last time.Time
	var spread [2]time.Duration = [2]time.Duration{time.Hour, 0}
	for i := range 10000 {
		now := t0.Add(time.Duration(i) * 10 * time.Millisecond) // sparse: clamping rare
		at, v := l.Admit(now, 100)
		if v != Deliver {
			t.Fatalf("frame %d: %v", i, v)
		}
		if at.Before(last) {
			t.Fatalf("frame %d delivered at %v before previous %v", i, at, last)
		}
		last = at
		d := at.Sub(now)
		if d > p.Delay+p.Jitter {
			t.Fatalf("frame %d delay %v > %v", i, d, p.Delay+p.Jitter)
		}
		spread[0], spread[1] = min(spread[0], d), max(spread[1], d)
	}
	if spread[0] > 282*time.Millisecond || spread[1] < 318*time.Millisecond {
		t.Errorf("delay range [%v, %v], want about [280ms, 320ms]", spread[0], spread[1])
	}
}
