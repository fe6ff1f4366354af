package export

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/atomicfile"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// RTTRows gathers the rows of the rtt output (docs/schema.md#rtt) while a
// capture is analysed (tcpanalysis.Options.OnRTT, through
// query.Options.OnRTT) instead of from samples kept in memory: a capture
// of millions of samples holds a few megabytes. The rows come out in RTT's
// order — by connection, then frame, then direction (ab, ba) and method
// (handshake, ack, ts) — so each connection's samples are written, 24
// bytes each, in blocks to a temporary file while the capture is read, and
// read back per connection in Rows. Only for the whole connection: a time
// range needs each connection's reference point first (use RTT).
type RTTRows struct {
	sel  query.Selection
	want [3]bool // by tcpanalysis.Method
	dirs [2]bool // by flows.Direction

	conns  map[int]*rttConn
	order  []int // connections with rows, in index order when sorted
	buffed int   // bytes held in blocks not yet written
	f      *os.File
	off    int64
	err    error
}

// rttConn is one connection's rows: the blocks in the file, the block
// being filled, the samples of the frame being read (reordered by
// direction and method), the connection's first packet.
type rttConn struct {
	first  capture.Timestamp
	blocks [][2]int64 // offset, length
	buf    []byte
	frame  []tcpanalysis.RTTSample
}

// rttRec is the size of one sample in a block: frame, time, RTT (ns) and
// direction << 4 | method.
const rttRec = 8 + 8 + 8 + 1

// spillAt is how many bytes of blocks RTTRows holds before writing them
// all out; blockLen is the size of one connection's block (variables for
// tests).
var (
	spillAt  = 8 << 20
	blockLen = 64 << 10
)

// NewRTTRows returns an RTTRows for the connections and directions of sel
// and the RTT metrics in want (query.MetricRTT, MetricRTTTS,
// MetricRTTHandshake). sel must have no time range.
func NewRTTRows(sel query.Selection, want map[query.Metric]bool) (*RTTRows, error) {
	if sel.From > 0 || sel.To > 0 {
		return nil, fmt.Errorf("%w: streamed rtt rows cover whole connections", query.ErrRange)
	}
	s := &RTTRows{sel: sel, conns: map[int]*rttConn{}}
	for _, d := range sel.Dir.Dirs() {
		s.dirs[d] = true
	}
	for m, ok := range want {
		if ok {
			s.want[method(m)] = true
		}
	}
	return s, nil
}

// OnRTT takes one sample; set it as query.Options.OnRTT.
func (s *RTTRows) OnRTT(r *tcpanalysis.ConnResult, x tcpanalysis.RTTSample) {
	if !s.want[x.Method] || !s.dirs[x.Dir] || !s.sel.Match(r) {
		return
	}
	c := s.conns[r.Conn.Index]
	if c == nil {
		c = &rttConn{first: r.Conn.First}
		s.conns[r.Conn.Index] = c
		s.order = append(s.order, r.Conn.Index)
	}
	if n := len(c.frame); n > 0 && c.frame[n-1].Frame != x.Frame {
		s.flushFrame(c)
	}
	c.frame = append(c.frame, x)
}

// flushFrame appends the samples of c's last frame to its block, in
// direction then method order.
func (s *RTTRows) flushFrame(c *rttConn) {
	rank := func(m tcpanalysis.Method) int { // RTT's order: handshake, ack, ts
		switch m {
		case tcpanalysis.MethodHandshake:
			return 0
		case tcpanalysis.MethodACK:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(c.frame, func(a, b tcpanalysis.RTTSample) int {
		return cmp.Or(cmp.Compare(a.Dir, b.Dir), cmp.Compare(rank(a.Method), rank(b.Method)))
	})
	for _, x := range c.frame {
		c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(x.Frame))
		c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(x.Time))
		c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(x.RTT))
		c.buf = append(c.buf, byte(x.Dir)<<4|byte(x.Method))
		s.buffed += rttRec
	}
	c.frame = c.frame[:0]
	if len(c.buf) >= blockLen {
		s.write(c)
	}
	if s.buffed >= spillAt {
		for _, c := range s.conns {
			s.write(c)
		}
	}
}

// write moves c's block to the file.
func (s *RTTRows) write(c *rttConn) {
	if len(c.buf) == 0 || s.err != nil {
		return
	}
	if s.f == nil {
		if s.f, s.err = os.CreateTemp("", "tcpviz-rtt-*.bin"); s.err != nil {
			return
		}
		atomicfile.Track(s.f.Name()) // removed if a signal stops the run
	}
	if _, err := s.f.WriteAt(c.buf, s.off); err != nil {
		s.err = err
		return
	}
	c.blocks = append(c.blocks, [2]int64{s.off, int64(len(c.buf))})
	s.off += int64(len(c.buf))
	s.buffed -= len(c.buf)
	c.buf = c.buf[:0]
}

// Rows yields the rows of RTT's table, after the analysis, of v's
// connection (the one the selection picked), with v's capture start; the slice it yields is reused. Read errors end the rows
// early and are reported by Err.
func (s *RTTRows) Rows(v *query.View) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		slices.Sort(s.order)
		row := make([]string, 7)
		var blk []byte
		for _, idx := range s.order {
			if idx != v.Conn.Conn.Index {
				continue // every verb reads one connection (query.Selection.Pick)
			}
			c := s.conns[idx]
			s.flushFrame(c)
			conn := strconv.Itoa(idx)
			emit := func(b []byte) bool {
				for ; len(b) >= rttRec; b = b[rttRec:] {
					frame := int64(binary.LittleEndian.Uint64(b))
					t := capture.Timestamp(binary.LittleEndian.Uint64(b[8:]))
					rtt := time.Duration(binary.LittleEndian.Uint64(b[16:]))
					d, m := flows.Direction(b[24]>>4), tcpanalysis.Method(b[24]&15)
					row[0], row[1], row[2] = conn, d.String(), m.String()
					row[3], row[4] = FormatS(v.CaptureS(t)), FormatSeconds(t.Sub(c.first))
					row[5] = strconv.FormatFloat(rtt.Seconds()*1000, 'f', 6, 64)
					row[6] = strconv.FormatInt(frame, 10)
					if !yield(row) {
						return false
					}
				}
				return true
			}
			for _, bl := range c.blocks {
				blk = slices.Grow(blk[:0], int(bl[1]))[:bl[1]]
				if _, err := s.f.ReadAt(blk, bl[0]); err != nil && !errors.Is(err, io.EOF) {
					s.err = err
					return
				}
				if !emit(blk) {
					return
				}
			}
			if !emit(c.buf) {
				return
			}
		}
	}
}

// Err is the first error writing or reading the temporary file.
func (s *RTTRows) Err() error {
	if s.err != nil {
		return fmt.Errorf("rtt rows: %w", s.err)
	}
	return nil
}

// Close removes the temporary file.
func (s *RTTRows) Close() error {
	if s.f == nil {
		return nil
	}
	name := s.f.Name()
	s.f.Close()
	defer atomicfile.Untrack(name)
	return os.Remove(name)
}
