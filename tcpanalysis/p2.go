package tcpanalysis

import (
	"slices"
	"time"
)

// p2Median estimates the median of a stream of durations in constant
// memory (40 bytes) and time, with no allocation: the P² algorithm of
// Jain and Chlamtac ("The P² algorithm for dynamic calculation of
// quantiles and histograms without storing observations", CACM 28(10),
// 1985) for p = 0.5. Up to 5 samples it holds them and the median is
// exact (nearest rank, as Percentiles); past that five markers follow
// the minimum, the quartiles, the median and the maximum, each moved by
// a piecewise-parabolic prediction. RTTAgg keeps one for every
// connection, direction and method, so that a verdict that compares
// medians (package pep) reads the same number whether or not the
// analysis kept the samples (docs/metrics.md#rtt-median-estimate).
type p2Median struct {
	q [5]float32 // marker heights in ns; the samples themselves while n < 5
	n [5]int32   // marker positions, 1-based
}

// p2Steps are the desired positions' increments per sample for p = 0.5.
var p2Steps = [5]float64{0, 0.25, 0.5, 0.75, 1}

// add adds sample d; count is the number of samples before it.
func (m *p2Median) add(d time.Duration, count int64) {
	x := float32(d)
	if count < 5 {
		m.q[count] = x
		if count == 4 {
			slices.Sort(m.q[:])
			m.n = [5]int32{1, 2, 3, 4, 5}
		}
		return
	}
	q, n := &m.q, &m.n
	var k int
	switch {
	case x < q[0]:
		q[0], k = x, 0
	case x < q[1]:
		k = 0
	case x < q[2]:
		k = 1
	case x < q[3]:
		k = 2
	case x <= q[4]:
		k = 3
	default:
		q[4], k = x, 3
	}
	for i := k + 1; i < 5; i++ {
		n[i]++
	}
	c := float64(count) // samples so far, this one included, minus one
	for i := 1; i < 4; i++ {
		want := 1 + c*p2Steps[i]
		dd := want - float64(n[i])
		if (dd >= 1 && n[i+1]-n[i] > 1) || (dd <= -1 && n[i-1]-n[i] < -1) {
			s := int32(1)
			if dd < 0 {
				s = -1
			}
			if h := m.parabolic(i, s); q[i-1] < h && h < q[i+1] {
				q[i] = h
			} else {
				q[i] += float32(s) * (q[i+int(s)] - q[i]) / float32(n[i+int(s)]-n[i])
			}
			n[i] += s
		}
	}
}

// parabolic is the P² piecewise-parabolic prediction of marker i moved by
// s (±1).
func (m *p2Median) parabolic(i int, s int32) float32 {
	q, n := &m.q, &m.n
	d := float64(s)
	qi, qm, qp := float64(q[i]), float64(q[i-1]), float64(q[i+1])
	ni, nm, np := float64(n[i]), float64(n[i-1]), float64(n[i+1])
	return float32(qi + d/(np-nm)*((ni-nm+d)*(qp-qi)/(np-ni)+(np-ni-d)*(qi-qm)/(ni-nm)))
}

// median returns the median of the count samples added: exact (nearest
// rank) below 6, the P² estimate above; ok is false when count is 0.
func (m *p2Median) median(count int64) (time.Duration, bool) {
	switch {
	case count <= 0:
		return 0, false
	case count <= 5:
		s := m.q
		if count < 5 {
			slices.Sort(s[:count])
		}
		return time.Duration(s[(count+1)/2-1]), true
	}
	return time.Duration(m.q[2]), true
}
