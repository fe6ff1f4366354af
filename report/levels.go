package report

// A level is one resolution of a series (docs/metrics.md#report-levels):
// points in time order, with x in
// microseconds since the connection's first packet. At level 0 every point
// is one source item (N is nil); at coarser levels a point stands for N
// consecutive source items of one bucket.
type level struct {
	X  []int64 // µs since the connection's first packet
	Y  []int64 // value (bytes, µs, lane index), or the bar's top (bars)
	Y2 []int64 // bars only: the bar's bottom; nil otherwise
	F  []int64 // frame number (at coarse levels: of the point kept, or the bucket's first)
	N  []int64 // source items the point stands for; nil at level 0
}

func (l *level) len() int { return len(l.X) }

// levelFactor is how many points of one level a bucket of the next holds;
// levelMin is the size below which no coarser level is made.
const (
	levelFactor = 8
	levelMin    = 1024
)

// shape says how a series is drawn, and so how it is thinned.
type shape uint8

const (
	// shapeBars: vertical bars from Y2 to Y (data segments, SACK blocks). A
	// bucket becomes one bar from its lowest bottom to its highest top, at
	// the time of its first item.
	shapeBars shape = iota
	// shapeLine: a line or step line (ACK, window, in flight). A bucket keeps
	// its lowest and its highest point, in time order (min/max decimation),
	// so the drawn envelope is exact.
	shapeLine
	// shapePoints: a scatter (RTT samples), thinned as shapeLine so that
	// outliers stay.
	shapePoints
	// shapeLane: marks on a lane of the events panel; a bucket keeps its
	// first mark.
	shapeLane
	// shapeSpan: time intervals shaded over the panel's height, from X to Y
	// (µs); Y2 holds the closing frame. Never thinned.
	shapeSpan
)

// pyramid returns l0 and its coarser levels, each levelFactor times
// smaller, down to fewer than levelMin points. keepAll returns only l0
// (retransmission and out-of-order marks are never thinned).
func pyramid(l0 level, sh shape, keepAll bool) []level {
	out := []level{l0}
	if keepAll {
		return out
	}
	src := l0
	for src.len() >= levelMin {
		nxt := thin(src, sh, levelFactor)
		if nxt.len() >= src.len() {
			break
		}
		out = append(out, nxt)
		src = nxt
	}
	return out
}

// thin makes one coarser level from src, with buckets of k points.
func thin(src level, sh shape, k int) level {
	var out level
	n := src.len()
	count := func(i int) int64 {
		if src.N == nil {
			return 1
		}
		return src.N[i]
	}
	for lo := 0; lo < n; lo += k {
		hi := min(lo+k, n)
		var c int64
		for i := lo; i < hi; i++ {
			c += count(i)
		}
		switch sh {
		case shapeBars:
			top, bot := src.Y[lo], src.Y2[lo]
			for i := lo + 1; i < hi; i++ {
				top, bot = max(top, src.Y[i]), min(bot, src.Y2[i])
			}
			out.X = append(out.X, src.X[lo])
			out.Y = append(out.Y, top)
			out.Y2 = append(out.Y2, bot)
			out.F = append(out.F, src.F[lo])
			out.N = append(out.N, c)
		case shapeLane:
			out.X = append(out.X, src.X[lo])
			out.Y = append(out.Y, src.Y[lo])
			out.F = append(out.F, src.F[lo])
			out.N = append(out.N, c)
		default:
			imin, imax := lo, lo
			for i := lo + 1; i < hi; i++ {
				if src.Y[i] < src.Y[imin] {
					imin = i
				}
				if src.Y[i] > src.Y[imax] {
					imax = i
				}
			}
			a, b := min(imin, imax), max(imin, imax)
			for j, i := range []int{a, b} {
				if j == 1 && b == a {
					break
				}
				out.X = append(out.X, src.X[i])
				out.Y = append(out.Y, src.Y[i])
				out.F = append(out.F, src.F[i])
				out.N = append(out.N, c)
			}
		}
	}
	return out
}

// sumLevels makes the levels of a binned series (throughput): each coarser
// level's bin is the sum of levelFactor bins, so its rate is their mean.
// width is level 0's bin width in µs; the returned widths are per level.
func sumLevels(l0 level, width int64) ([]level, []int64) {
	out, widths := []level{l0}, []int64{width}
	src := l0
	for src.len() >= levelMin/4 {
		var nxt level
		for lo := 0; lo < src.len(); lo += levelFactor {
			hi := min(lo+levelFactor, src.len())
			var s int64
			for i := lo; i < hi; i++ {
				s += src.Y[i]
			}
			nxt.X = append(nxt.X, src.X[lo])
			nxt.Y = append(nxt.Y, s)
			nxt.F = append(nxt.F, 0)
		}
		width *= levelFactor
		out, widths = append(out, nxt), append(widths, width)
		src = nxt
	}
	return out, widths
}
