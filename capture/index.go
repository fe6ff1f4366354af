package capture

// A FrameIndex is where the segments of a plain pcap file are, written by
// one read that decodes every frame (Segment.Offset), for a
// second read that needs the segments of one 4-tuple only
// (Reader.ReadIndexed): that read skips the records of other 4-tuples
// without framing or decoding them. It is what lets the second pass of a
// series command (tcpanalysis.Options.Replay) cost about what its chosen
// connection costs, not what the file does (docs/performance.md, session
// 11).
//
// Per frame it keeps one byte, the tag its caller computed from the
// segment's endpoints (1–255, the same both ways; 0 for a frame that is no
// segment), and per IndexGroup frames the file offset, frame number and
// segment number of the group's first segment: about 1.4 bytes a frame.
// Over its budget it drops everything and says so (Valid).
type FrameIndex struct {
	tags   []byte       // tags[f-1]: frame f's tag; 0 if f is no segment (f ≤ last)
	last   int64        // the last frame added
	groups []indexGroup // groups[g]: the first segment of frames [g·IndexGroup+1, (g+1)·IndexGroup]
	ticks  []Timestamp  // ticks[k-1]: the time of segment k·IndexTick
	n      int64        // segments added
	first  Timestamp    // the first segment's time
	fine   int64        // the first segment whose FineTime is true (0: none)
	budget int64        // bytes; 0: no limit
	size   int64        // the file's size when the read began
	state  indexState
	why    string // dropped: why
	stats  Stats
	warns  []string
	own    []LinkOwn // the read's Reader.LinkOwn
	ownCut bool
}

type indexState uint8

const (
	indexOpen    indexState = iota // being written
	indexDone                      // written, valid
	indexDropped                   // not usable (why)
)

// indexGroup is the file offset, frame number and 1-based segment number
// of a group's first segment (off 0: the group holds no segment).
type indexGroup struct{ off, frame, seg int64 }

// IndexGroup is how many frames share one entry of a FrameIndex's offsets;
// IndexTick how many segments pass between two of its recorded times
// (tcpanalysis releases finished connections at those segments).
const (
	IndexGroup = 64
	IndexTick  = 1 << 16
)

// NewFrameIndex returns an empty FrameIndex that drops itself once it
// would hold more than budget bytes (0: no limit).
func NewFrameIndex(budget int64) *FrameIndex { return &FrameIndex{budget: budget} }

// Begin starts writing ix from r, a plain pcap file read in place from its
// first frame (CanReadFrames); for another, ix is dropped.
func (ix *FrameIndex) Begin(r *Reader) {
	if ix == nil {
		return
	}
	if !r.CanReadFrames() {
		ix.drop("the capture is not a plain pcap file read in place")
		return
	}
	ix.size = r.fileSize()
	// Room for a frame every 48 bytes (a TCP segment's record takes 70
	// at least): memory the index does not write is never touched, so
	// it costs address space only.
	n := ix.size / 48
	if ix.budget > 0 {
		n = min(n, ix.budget*8/11) // 1 + 24/64 = 11/8 bytes a frame
	}
	ix.tags = make([]byte, max(n, 1024))
	ix.groups = make([]indexGroup, 0, len(ix.tags)/IndexGroup+1)
}

// Add records s, the next segment of the read in capture order (its Frame
// and Offset set), with its tag (1–255).
func (ix *FrameIndex) Add(s *Segment, tag uint8) {
	f := s.Frame
	if ix.state != indexOpen || f > int64(len(ix.tags)) || f <= ix.last || s.Offset <= 0 || tag == 0 {
		ix.addSlow(s, tag)
		return
	}
	ix.tags[f-1] = tag
	ix.last = f
	ix.n++
	if g := int((f - 1) / IndexGroup); g >= len(ix.groups) {
		ix.group(g, s)
	}
	if ix.n%IndexTick == 0 || ix.n == 1 || (s.FineTime && ix.fine == 0) {
		ix.mark(s)
	}
}

// addSlow is Add for a segment past the room the index has, or out of
// order, or an index no longer written.
func (ix *FrameIndex) addSlow(s *Segment, tag uint8) {
	if ix == nil || ix.state != indexOpen {
		return
	}
	f := s.Frame
	if tag == 0 || s.Offset <= 0 || f <= ix.last {
		ix.drop("a segment without its place in the file")
		return
	}
	if ix.budget > 0 && f+24*(f/IndexGroup+1) > ix.budget {
		ix.drop("the index outgrew its memory budget")
		return
	}
	tags := make([]byte, max(2*int64(len(ix.tags)), f))
	copy(tags, ix.tags[:ix.last])
	ix.tags = tags
	ix.Add(s, tag)
}

// group starts group g at s, its first segment.
func (ix *FrameIndex) group(g int, s *Segment) {
	for len(ix.groups) < g {
		ix.groups = append(ix.groups, indexGroup{})
	}
	ix.groups = append(ix.groups, indexGroup{s.Offset, s.Frame, ix.n})
}

// mark records the first segment's time, the first whose FineTime is
// true, and the time of every IndexTick-th.
func (ix *FrameIndex) mark(s *Segment) {
	if ix.n == 1 {
		ix.first = s.Time
	}
	if s.FineTime && ix.fine == 0 {
		ix.fine = ix.n
	}
	if ix.n%IndexTick == 0 {
		ix.ticks = append(ix.ticks, s.Time)
	}
}

// End completes ix with the reader's Stats and Warnings at the end of the
// read (what the second read reports, as it sees only some frames). err is
// the read's error: ix is usable only after a read that ended well.
func (ix *FrameIndex) End(r *Reader, err error) {
	if ix == nil || ix.state != indexOpen {
		return
	}
	if err != nil {
		ix.drop("the read ended in an error")
		return
	}
	ix.stats, ix.warns, ix.state = r.Stats(), append([]string(nil), r.Warnings()...), indexDone
	ix.own, ix.ownCut = r.LinkOwn()
}

func (ix *FrameIndex) drop(why string) {
	*ix = FrameIndex{state: indexDropped, why: why, budget: ix.budget}
}

// Valid reports whether ix was written whole by a read that ended well;
// if not, why says why.
func (ix *FrameIndex) Valid() (ok bool, why string) {
	if ix == nil {
		return false, "no index"
	}
	switch ix.state {
	case indexDone:
		return true, ""
	case indexOpen:
		return false, "the index is still being written"
	}
	return false, ix.why
}

// Segments returns how many segments ix holds.
func (ix *FrameIndex) Segments() int64 { return ix.n }

// First returns the time of the first segment (0 without one).
func (ix *FrameIndex) First() Timestamp { return ix.first }

// Tick returns the time of segment k·IndexTick (k ≥ 1, k·IndexTick ≤
// Segments()).
func (ix *FrameIndex) Tick(k int64) Timestamp { return ix.ticks[k-1] }

// Stats and Warnings are the reader's at the end of the read that wrote ix.
func (ix *FrameIndex) Stats() Stats { return ix.stats }

// Warnings: see Stats.
func (ix *FrameIndex) Warnings() []string { return ix.warns }

// LinkOwn: see Stats (Reader.LinkOwn).
func (ix *FrameIndex) LinkOwn() ([]LinkOwn, bool) { return ix.own, ix.ownCut }

// Release frees ix's memory; it is no longer Valid.
func (ix *FrameIndex) Release() {
	if ix != nil {
		ix.drop("released")
	}
}
