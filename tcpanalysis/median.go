package tcpanalysis

import (
	"math/bits"
	"slices"
	"time"
)

// medHist holds what one RTTAgg's median estimate needs while its
// connection is alive (RTTAgg.MedianEstimate): the first medExact samples
// as they are, then every sample counted in a log-linear histogram of
// 2^medSub buckets per power of two (as HDR histograms bucket), whose
// nearest-rank bucket's midpoint is within MedianRelErr of the exact
// nearest-rank median whatever the samples' shape (a bimodal delayed-ACK
// mix included, which a marker-based estimator such as P² can miss by an
// order of magnitude). When the connection is over, the median is kept
// in the RTTAgg and the histogram recycled, so that a finished
// connection holds 16 bytes for it (docs/metrics.md#rtt-median-estimate).
type medHist struct {
	n      int64
	exact  [medExact]time.Duration
	zero   uint32 // samples ≤ 0 past the exact ones
	lo     int    // bucket of counts[0]
	counts []uint32
}

const (
	medExact = 16 // samples kept as they are: the median is exact up to this many
	medSub   = 4  // log2 of the buckets per power of two
	// MedianRelErr bounds the relative error of RTTAgg.MedianEstimate
	// past its first 8 samples: half a bucket's width, 2^-(medSub+1).
	MedianRelErr = 1.0 / (1 << (medSub + 1))
)

// medBucket returns the histogram bucket of d > 0: its power of two
// times 2^medSub plus the medSub bits below the leading one. Durations
// below 2^medSub ns share the bucket of 2^medSub ns.
func medBucket(d time.Duration) int {
	u := max(uint64(d), 1<<medSub)
	b := bits.Len64(u) - 1
	m := (u >> (b - medSub)) & (1<<medSub - 1)
	return b<<medSub | int(m)
}

// medMid returns the midpoint of bucket k in ns.
func medMid(k int) time.Duration {
	b, m := k>>medSub, k&(1<<medSub-1)
	lo := float64(uint64(1)<<b) * (1 + float64(m)/(1<<medSub))
	hi := float64(uint64(1)<<b) * (1 + float64(m+1)/(1<<medSub))
	return time.Duration((lo + hi) / 2)
}

// add adds sample d. The hot path (RTTAgg.add) calls it once per RTT
// sample, so it is small enough to inline: the move to the histogram and
// its growth are out of line (count).
func (h *medHist) add(d time.Duration) {
	if h.n < medExact {
		h.exact[h.n] = d
	} else if i := medBucket(d) - h.lo; d > 0 && h.n > medExact && uint(i) < uint(len(h.counts)) {
		h.counts[i]++
	} else {
		h.slow(d)
	}
	h.n++
}

// slow is add's rare cases: the first sample past the exact ones (they
// move into the histogram), a sample ≤ 0, one outside the buckets so far.
func (h *medHist) slow(d time.Duration) {
	if h.n == medExact {
		for _, x := range h.exact {
			h.count(x)
		}
	}
	h.count(d)
}

func (h *medHist) count(d time.Duration) {
	if d <= 0 {
		h.zero++
		return
	}
	k := medBucket(d)
	h.counts, h.lo = spanTo(h.counts, h.lo, k)
	h.counts[k-h.lo]++
}

// median returns the nearest-rank median of the samples: exact up to
// medExact samples, else the midpoint of its bucket; ok is false without
// samples.
func (h *medHist) median() (m time.Duration, exact, ok bool) {
	switch {
	case h.n == 0:
		return 0, false, false
	case h.n <= medExact:
		s := h.exact
		slices.Sort(s[:h.n])
		return s[(h.n+1)/2-1], true, true
	}
	k := uint64(h.n+1) / 2
	cum := uint64(h.zero)
	if cum >= k {
		return 0, false, true
	}
	for i, c := range h.counts {
		if cum += uint64(c); cum >= k {
			return medMid(h.lo + i), false, true
		}
	}
	return 0, false, false // not reached: the counts hold n samples
}

// reset empties h for reuse, keeping a small counts array.
func (h *medHist) reset() {
	c := h.counts
	if cap(c) > 1024 {
		c = nil
	}
	*h = medHist{counts: c[:0]}
}
