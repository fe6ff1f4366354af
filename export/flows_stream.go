package export

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/tcpviz/tcpviz/flows"
)

// flowsTableHead and flowsTableFooter frame the human flows table.
var flowsTableHead = []string{"conn", "a", "b", "start_s", "dur_s", "pkts a>b", "pkts b>a", "bytes a>b", "bytes b>a",
	"retx B a>b", "retx B b>a", "retx segs a>b", "retx segs b>a", "syn/fin retx a>b", "syn/fin retx b>a", "goodput a>b kbit/s", "goodput b>a kbit/s", "handshake", "wscale a/b", "folded"}

const flowsTableFooter = "bytes = TCP payload incl. retransmissions; retx B = payload bytes sent again; " +
	"retx segs = data segments sent again, incl. gap fillers whose first copy was not captured (no retx B); " +
	"syn/fin retx = SYN, SYN-ACK or FIN sent again without payload; retrans lists both; " +
	"goodput = payload bytes delivered / duration (docs/metrics.md); wscale ? = unknown"

// tableCells is the row's line of the human flows table.
func (r *FlowRow) tableCells() []string {
	ws := func(p *int) string {
		if p == nil {
			return "?"
		}
		return strconv.Itoa(*p)
	}
	hs := "no"
	if r.Handshake {
		hs = "yes"
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []string{strconv.Itoa(r.Conn), HostPort(r.AAddr, r.APort), HostPort(r.BAddr, r.BPort),
		strconv.FormatFloat(r.StartS, 'f', 3, 64), strconv.FormatFloat(r.DurationS, 'f', 3, 64),
		i(r.PktsAB), i(r.PktsBA), i(r.BytesAB), i(r.BytesBA), i(r.RetxBytesAB), i(r.RetxBytesBA), i(r.RetxSegsAB), i(r.RetxSegsBA),
		i(r.CtlRetxAB), i(r.CtlRetxBA), pepCell(r.GoodputAB, r.PEPAB, r.PEPPossibleAB), pepCell(r.GoodputBA, r.PEPBA, r.PEPPossibleBA),
		hs, ws(r.WScaleA) + "/" + ws(r.WScaleB), i(r.FoldedDups)}
}

// FlowsFormat is an output format of the flows verb.
type FlowsFormat uint8

// The flows output formats (docs/schema.md#flows).
const (
	FlowsTable FlowsFormat = iota // aligned text table (WriteFlowsTable)
	FlowsCSV                      // CSV (WriteFlowsCSV)
	FlowsJSON                     // indented JSON, schema FlowsSchema
)

// Spool is where a FlowsStream keeps a file's formatted table or JSON rows
// until the file ends: rows are appended with WriteAt and read back in
// index order with ReadAt. A temporary *os.File is one (its pages are the
// kernel's, not the process's); nil keeps them in memory.
type Spool interface {
	io.WriterAt
	io.ReaderAt
}

// FlowsStream writes the flows CSV, table or JSON while captures are
// analysed: rows arrive as their connections end (tcpanalysis.Options.OnDone),
// in any order, and each is kept only as its formatted text until it can be
// written. The CSV is written as soon as the rows are in index order; a
// row ahead of it waits in memory (a few hundred bytes), or in the Spool
// once those waiting hold waitBudget bytes (a long connection with a low
// index holds every row after it back until it ends). The table's column
// widths and the JSON's per-file header (frames, read statistics,
// warnings) are known only when the file ends, so their rows go to the
// Spool as they arrive, with their widths measured, and are copied out in
// index order at the end of each file: the process holds 8 bytes per
// connection. A row given late (a connection whose PEP mark needs a
// second pass) holds the CSV rows after it back.
// The output is byte for byte WriteFlowsCSV's or WriteFlowsTable's, or the
// JSON encoding (two-space indent) of {"files": [FlowsFile...], "schema":
// FlowsSchema}.
type FlowsStream struct {
	format FlowsFormat
	bw     *bufio.Writer // every format's output
	w      io.Writer
	file   string
	next   int // CSV: index of the next row to write
	// ahead and mem are the CSV rows waiting in memory for the rows before
	// them: ahead[k] is row next+k's place in mem (offset<<rowLenBits |
	// length), skipped for a row given as nothing (Skip), 0 for one not
	// here (not given yet, or in the spool).
	ahead    []uint64
	mem      []byte
	live     []int // compactMem's scratch
	waitN    int   // CSV: bytes of the rows in mem
	budget   int   // CSV: most bytes in mem; rows beyond go to the spool
	pep      bool  // some file had a PEP mark (table footer)
	pepMaybe bool  // some file had a PEP? mark (table footer)
	err      error // the first error of the spool
	hold     bool  // CSV: rows wait until their file ends (HoldRows)

	spool Spool
	size  int64    // bytes of the spool in use by this file's rows
	at    []uint64 // by index: offset<<24 | length of the row's text in the spool; 0 = no row
	n     int      // rows of this file
	width []int    // table: widest cell of each column in this file's rows
	files int      // JSON: files written
	cells []byte   // table: the row being put
	// fileCell is the CSV cell of the file name fileCellOf, with which
	// every row of that file starts: escaped once, copied into each row.
	fileCell   []byte
	fileCellOf string
	line       []byte // CSV: the row being put
	wbuf       []byte // rows not yet written to the spool, which end at size
	rbuf       []byte // rows read back from the spool, from offset roff
	roff       int64
}

// spoolIO is the size of the spool's writes and reads (rows arrive and are
// read back mostly in index order, so one read serves many rows).
const spoolIO = 1 << 16

// waitBudget is how many bytes of CSV rows wait in memory for the rows
// before them; more go to the spool.
const waitBudget = 4 << 20

// rowLenBits is the bits of FlowsStream.at and FlowsStream.ahead that
// hold a row's length.
const rowLenBits = 24

// skipped marks in FlowsStream.ahead a row given as nothing (Skip): no
// row's offset in mem reaches it.
const skipped = 1 << 63

// NewFlowsStream returns a stream writing CSV (asCSV) or the table to w,
// keeping the table's rows in memory; the CSV header is written at once.
func NewFlowsStream(w io.Writer, asCSV bool) *FlowsStream {
	f := FlowsTable
	if asCSV {
		f = FlowsCSV
	}
	return NewFlowsStreamAs(w, f, nil)
}

// NewFlowsStreamAs returns a stream writing format f to w; table and JSON
// rows wait in spool (nil: in memory) until their file ends. The CSV
// header is written at once.
func NewFlowsStreamAs(w io.Writer, f FlowsFormat, spool Spool) *FlowsStream {
	if spool == nil {
		spool = &memSpool{}
	}
	s := &FlowsStream{w: w, format: f, spool: spool, bw: bufio.NewWriterSize(w, 1<<16), budget: waitBudget}
	if f == FlowsCSV {
		// The header as encoding/csv writes it; the rows follow from
		// FlowRow.AppendCSV, all through bw (no write(2) per row).
		var h []byte
		for i, c := range FlowColumns {
			if i > 0 {
				h = append(h, ',')
			}
			h = appendCSVString(h, c)
		}
		s.bw.Write(append(h, '\n'))
	}
	return s
}

// HoldRows makes the CSV, like the table and JSON, keep each file's rows
// (in the spool) until the file ends (EndFile), so that DropFile can leave
// out a file that fails part-way: with several captures, one that cannot
// be read is left out whole. Call it before the first BeginFile.
func (s *FlowsStream) HoldRows() { s.hold = true }

// DropFile forgets the rows given since BeginFile, of a capture that could
// not be read: none of them is written. It needs rows not yet written: the
// table's and JSON's, or the CSV's after HoldRows.
func (s *FlowsStream) DropFile() {
	s.BeginFile("")
}

// BeginFile starts the rows of capture file path.
func (s *FlowsStream) BeginFile(path string) {
	s.file, s.next, s.ahead, s.mem, s.waitN = path, 0, s.ahead[:0], s.mem[:0], 0
	s.size, s.at, s.n, s.width = 0, s.at[:0], 0, s.width[:0]
	s.wbuf, s.rbuf = s.wbuf[:0], s.rbuf[:0]
}

// Put adds a row, in any order. A JSON row must have been built with its
// JSON maps (NewFlowRow withJSON).
func (s *FlowsStream) Put(r *FlowRow) {
	switch s.format {
	case FlowsTable:
		cells := r.tableCells()
		b := s.cells[:0]
		for j, c := range cells {
			if j >= len(s.width) {
				s.width = append(s.width, 0)
			}
			s.width[j] = max(s.width[j], utf8.RuneCountInString(c))
			if j > 0 {
				b = append(b, 0)
			}
			b = append(b, c...)
		}
		s.cells = b
		s.spoolRow(r.Conn, b)
		return
	case FlowsJSON:
		row := *r // the copy, not r, goes to the heap (encoding/json keeps nothing, but its interface argument escapes), so a CSV row can stay on its caller's stack
		b, err := json.MarshalIndent(&row, "        ", "  ")
		if err != nil {
			s.fail(fmt.Errorf("flows JSON of %s conn %d: %w", s.file, r.Conn, err))
			return
		}
		s.spoolRow(r.Conn, b)
		return
	}
	if r.File != s.fileCellOf { // the zero fileCellOf: "", whose cell is empty
		s.fileCellOf, s.fileCell = r.File, appendCSVString(s.fileCell[:0], r.File)
	}
	s.line = r.appendCSVAfterFile(append(s.line[:0], s.fileCell...))
	if s.hold {
		s.spoolRow(r.Conn, s.line)
		return
	}
	if r.Conn == s.next {
		s.bw.Write(s.line)
		s.advance()
		return
	}
	if s.waitN+len(s.line) > s.budget {
		s.spoolRow(r.Conn, s.line)
		return
	}
	if len(s.mem)+len(s.line) > cap(s.mem) && len(s.mem)-s.waitN >= cap(s.mem)/4 {
		// Full, and a quarter or more of it rows already written: squeeze
		// these out rather than grow.
		s.compactMem()
	}
	s.setAhead(r.Conn, uint64(len(s.mem))<<rowLenBits|uint64(len(s.line)))
	s.mem = append(s.mem, s.line...)
	s.waitN += len(s.line)
}

// setAhead sets ahead's entry of row i (after next) to a.
func (s *FlowsStream) setAhead(i int, a uint64) {
	k := i - s.next
	if n := len(s.ahead); k >= n {
		s.ahead = slices.Grow(s.ahead, k+1-n)[:k+1]
		clear(s.ahead[n:])
	}
	s.ahead[k] = a
}

// compactMem moves the rows waiting in mem to its start, in the order
// they came, over those already written: done when mem is full and these
// are a quarter of it or more, it copies at most three bytes for each
// byte written since the last time, and mem grows only when three
// quarters of it wait.
func (s *FlowsStream) compactMem() {
	live := s.live[:0]
	for k, a := range s.ahead {
		if a != 0 && a != skipped {
			live = append(live, k)
		}
	}
	// By offset (an entry's high bits): each row moves down, over rows
	// written or moved already.
	slices.SortFunc(live, func(x, y int) int { return cmp.Compare(s.ahead[x], s.ahead[y]) })
	n := 0
	for _, k := range live {
		a := s.ahead[k]
		off, l := int(a>>rowLenBits), int(a&(1<<rowLenBits-1))
		copy(s.mem[n:], s.mem[off:off+l])
		s.ahead[k] = uint64(n)<<rowLenBits | uint64(l)
		n += l
	}
	s.mem, s.live = s.mem[:n], live
}

// advance moves past row next, just written, and writes the rows after it
// that wait in index order.
func (s *FlowsStream) advance() {
	s.next++
	if len(s.ahead) > 0 {
		s.ahead = s.ahead[1:]
	}
	s.flushCSV()
}

// Skip tells the stream that connection i of the file has no row (a
// selection left it out): CSV rows after it need not wait for it. The
// table and JSON write their rows in index order past any hole.
func (s *FlowsStream) Skip(i int) {
	if s.format != FlowsCSV || s.hold {
		return
	}
	if i == s.next {
		s.advance()
		return
	}
	s.setAhead(i, skipped) // written as nothing when its turn comes
}

// fail keeps the stream's first error.
func (s *FlowsStream) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// spoolRow appends row i's text b to the spool.
func (s *FlowsStream) spoolRow(i int, b []byte) {
	if len(b) == 0 || len(b) >= 1<<rowLenBits || s.size >= 1<<(64-rowLenBits) {
		s.fail(fmt.Errorf("flows of %s conn %d: row of %d bytes at %d cannot be spooled", s.file, i, len(b), s.size))
		return
	}
	if n := len(s.at); i >= n {
		s.at = slices.Grow(s.at, i+1-n)[:i+1]
		clear(s.at[n:]) // the array may hold an earlier file's rows
	}
	if s.at[i] == 0 {
		s.n++
	}
	s.at[i] = uint64(s.size)<<rowLenBits | uint64(len(b))
	s.size += int64(len(b))
	s.wbuf = append(s.wbuf, b...)
	if len(s.wbuf) >= spoolIO {
		s.flushSpool()
	}
}

// flushSpool writes the rows buffered in wbuf to the spool.
func (s *FlowsStream) flushSpool() {
	if len(s.wbuf) == 0 {
		return
	}
	if _, err := s.spool.WriteAt(s.wbuf, s.size-int64(len(s.wbuf))); err != nil {
		s.fail(fmt.Errorf("flows of %s: spool rows: %w", s.file, err))
	}
	s.wbuf = s.wbuf[:0]
}

// spooled calls f with the text of each row of the file in index order;
// the slice is valid until f returns.
func (s *FlowsStream) spooled(f func([]byte)) error {
	if s.flushSpool(); s.err != nil {
		return s.err
	}
	s.rbuf = s.rbuf[:0]
	for i, a := range s.at {
		if a == 0 {
			continue
		}
		b, err := s.readRow(i)
		if err != nil {
			return err
		}
		f(b)
	}
	return nil
}

// readRow returns the text of spooled row i (which must be there), valid
// until the next read or write of the spool.
func (s *FlowsStream) readRow(i int) ([]byte, error) {
	a := s.at[i]
	off, n := int64(a>>rowLenBits), int64(a&(1<<rowLenBits-1))
	written := s.size - int64(len(s.wbuf)) // the spool's bytes below are in it, the rest in wbuf
	if off >= written {
		return s.wbuf[off-written : off-written+n], nil
	}
	if off < s.roff || off+n > s.roff+int64(len(s.rbuf)) {
		m := min(max(n, spoolIO), written-off)
		if int64(cap(s.rbuf)) < m {
			s.rbuf = make([]byte, m)
		}
		s.rbuf, s.roff = s.rbuf[:m], off
		if _, err := s.spool.ReadAt(s.rbuf, off); err != nil {
			s.rbuf = s.rbuf[:0]
			return nil, fmt.Errorf("flows of %s: read spooled rows: %w", s.file, err)
		}
	}
	return s.rbuf[off-s.roff : off-s.roff+n], nil
}

// writeWaiting writes the CSV row i (at or after next) if it waits, in
// memory or in the spool, and reports whether it did.
func (s *FlowsStream) writeWaiting(i int) bool {
	if k := i - s.next; k < len(s.ahead) && s.ahead[k] != 0 {
		if a := s.ahead[k]; a != skipped {
			off, n := int(a>>rowLenBits), int(a&(1<<rowLenBits-1))
			s.bw.Write(s.mem[off : off+n])
			if s.waitN -= n; s.waitN == 0 {
				s.mem = s.mem[:0] // every row in mem written
			}
		}
		s.ahead[k] = 0
		return true
	}
	if i >= len(s.at) || s.at[i] == 0 {
		return false
	}
	b, err := s.readRow(i)
	if err != nil {
		s.fail(err)
		return false
	}
	s.bw.Write(b)
	s.at[i] = 0
	return true
}

// flushCSV writes the waiting CSV rows that are next in index order.
func (s *FlowsStream) flushCSV() {
	for s.writeWaiting(s.next) {
		s.next++
		if len(s.ahead) > 0 {
			s.ahead = s.ahead[1:]
		}
	}
}

// EndFile writes what is left of the file's rows; ff gives the table's
// header line (format, frames, segments) and its PEP notes and marks, and
// the JSON's file object but for its rows (Stats and Warnings included).
func (s *FlowsStream) EndFile(ff *FlowsFile) error {
	if s.err != nil {
		return s.err
	}
	switch s.format {
	case FlowsCSV:
		if s.hold {
			// Every row waited in the spool: in index order.
			if err := s.spooled(func(row []byte) { s.bw.Write(row) }); err != nil {
				return err
			}
			return s.bw.Flush()
		}
		// The rows left, in index order, past the holes of connections
		// never given.
		end := max(len(s.at), s.next+len(s.ahead))
		for i := s.next; i < end; i++ {
			s.writeWaiting(i)
		}
		s.ahead, s.mem, s.waitN = s.ahead[:0], s.mem[:0], 0
		if s.err != nil {
			return s.err
		}
		return s.bw.Flush()
	case FlowsJSON:
		return s.endJSON(ff)
	}
	name := ff.File
	if name == "-" {
		name = "stdin" // as WriteFlowsTable
	}
	bw := s.bw
	fmt.Fprintf(bw, "%s: %s, %d frames, %d TCP segments, %d connections\n", name, ff.Format, ff.Frames, ff.Segments, s.n)
	head := pepHead(flowsTableHead, *ff)
	if len(ff.pepDirs) > 0 {
		s.pep = true
	}
	if len(ff.pepMaybe) > 0 {
		s.pepMaybe = true
	}
	width := make([]int, max(len(head), len(s.width)))
	copy(width, s.width)
	for i, c := range head {
		width[i] = max(width[i], utf8.RuneCountInString(c))
	}
	pad := func(n int) {
		for ; n > 0; n-- {
			bw.WriteByte(' ')
		}
	}
	for i, c := range head {
		if i > 0 {
			bw.WriteString("  ")
		}
		pad(width[i] - utf8.RuneCountInString(c))
		bw.WriteString(c)
	}
	bw.WriteByte('\n')
	err := s.spooled(func(row []byte) {
		for i := 0; ; i++ {
			end := bytes.IndexByte(row, 0)
			c := row
			if end >= 0 {
				c = row[:end]
			}
			if i > 0 {
				bw.WriteString("  ")
			}
			pad(width[i] - utf8.RuneCount(c))
			bw.Write(c)
			if end < 0 {
				break
			}
			row = row[end+1:]
		}
		bw.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	for _, n := range ff.PEPNotes {
		fmt.Fprintln(bw, "note:", n)
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// endJSON writes the file's JSON object, its rows copied from the spool.
func (s *FlowsStream) endJSON(ff *FlowsFile) error {
	f := *ff
	f.Conns = []FlowRow{}
	if f.Warnings == nil {
		f.Warnings = []string{}
	}
	obj, err := json.MarshalIndent(&f, "    ", "  ")
	if err != nil {
		return fmt.Errorf("flows JSON of %s: %w", ff.File, err)
	}
	const mark = "\n      \"conns\": []"
	k := bytes.Index(obj, []byte(mark))
	if k < 0 {
		return fmt.Errorf("flows JSON of %s: no conns field", ff.File)
	}
	k += len(mark) - 1 // at the ']'
	bw := s.bw
	if s.files == 0 {
		bw.WriteString("{\n  \"files\": [\n    ")
	} else {
		bw.WriteString(",\n    ")
	}
	s.files++
	bw.Write(obj[:k])
	first := true
	err = s.spooled(func(row []byte) {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteString("\n        ")
		bw.Write(row)
	})
	if err != nil {
		return err
	}
	if !first {
		bw.WriteString("\n      ")
	}
	bw.Write(obj[k:])
	return bw.Flush()
}

// Close ends the output: the table's footer line, the end of the JSON, or
// flushing the CSV.
func (s *FlowsStream) Close() error {
	if s.err != nil {
		return s.err
	}
	switch s.format {
	case FlowsCSV:
		return s.bw.Flush()
	case FlowsJSON:
		schema, _ := json.Marshal(FlowsSchema)
		if s.files == 0 {
			s.bw.WriteString("{\n  \"files\": null")
		} else {
			s.bw.WriteString("\n  ]")
		}
		fmt.Fprintf(s.bw, ",\n  \"schema\": %s\n}\n", schema)
		return s.bw.Flush()
	}
	fmt.Fprintln(s.bw, flowsTableFooter+pepFooterText(s.pep, s.pepMaybe))
	return s.bw.Flush()
}

// memSpool is a Spool in memory.
type memSpool struct{ b []byte }

// WriteAt writes p at off, growing the spool.
func (m *memSpool) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = slices.Grow(m.b, end-len(m.b))[:end]
	}
	return copy(m.b[off:], p), nil
}

// ReadAt reads len(p) bytes at off.
func (m *memSpool) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > int64(len(m.b)) {
		return 0, io.ErrUnexpectedEOF
	}
	return copy(p, m.b[off:]), nil
}

// MarkPEP sets a row's acks_from_pep columns from the data direction a
// split-TCP PEP acknowledged (docs/metrics.md#pep).
func (r *FlowRow) MarkPEP(d flows.Direction) { r.PEPAB, r.PEPBA = d == flows.AtoB, d == flows.BtoA }

// MarkPEPPossible sets a row's pep_possible columns from the data
// direction a split-TCP PEP may have acknowledged (package pep,
// Verdict.Possible).
func (r *FlowRow) MarkPEPPossible(d flows.Direction) {
	r.PEPPossibleAB, r.PEPPossibleBA = d == flows.AtoB, d == flows.BtoA
}

// NewStreamedFlowsFile is the FlowsFile of a capture whose rows went
// through a FlowsStream: its header facts, warnings and PEP notes, with
// the data directions a PEP likely acknowledged (pepDirs) or may have
// (pepMaybe), by connection.
func NewStreamedFlowsFile(path string, format string, frames, segments int64, warnings []string, pepNotes []string, pepDirs, pepMaybe map[int]flows.Direction) FlowsFile {
	return FlowsFile{File: path, Format: format, Frames: frames, Segments: segments, Warnings: warnings, PEPNotes: pepNotes, pepDirs: pepDirs, pepMaybe: pepMaybe}
}
