package export

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tcpviz/tcpviz/flows"
)

// flowsTableHead and flowsTableFooter frame the human flows table.
var flowsTableHead = []string{"conn", "a", "b", "start_s", "dur_s", "pkts a>b", "pkts b>a", "bytes a>b", "bytes b>a",
	"retx B a>b", "retx B b>a", "goodput a>b kbit/s", "goodput b>a kbit/s", "handshake", "wscale a/b", "folded"}

const flowsTableFooter = "bytes = TCP payload incl. retransmissions; retx B = payload bytes sent again; goodput = payload bytes delivered to the receiver / duration (docs/metrics.md); wscale ? = unknown"

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
		i(r.PktsAB), i(r.PktsBA), i(r.BytesAB), i(r.BytesBA), i(r.RetxBytesAB), i(r.RetxBytesBA),
		pepCell(r.GoodputAB, r.PEPAB), pepCell(r.GoodputBA, r.PEPBA),
		hs, ws(r.WScaleA) + "/" + ws(r.WScaleB), i(r.FoldedDups)}
}

// FlowsStream writes the flows CSV or table while captures are analysed:
// rows arrive as their connections end (tcpanalysis.Options.OnDone), in
// any order, and each is kept only as its formatted line (a few hundred
// bytes) until the rows before it are out. The CSV is written as soon as
// the rows are in index order; the table, whose column widths depend on
// every row, at the end of each file. A row given late (a connection
// whose PEP mark needs a second pass) holds the rows after it back.
// The output is byte for byte WriteFlowsCSV's or WriteFlowsTable's.
type FlowsStream struct {
	csv  *csv.Writer   // CSV: the header only
	bw   *bufio.Writer // CSV: under csv, and every row (FlowRow.AppendCSV)
	line []byte        // CSV: the row being formatted
	w    io.Writer
	file string
	next int            // CSV: index of the next row to write
	wait map[int]string // CSV: records ready, by index
	tab  rowArena       // table: every row of the file by index, its cells joined by \x00
	pep  bool           // some file had a PEP mark (table footer)
}

// NewFlowsStream returns a stream writing CSV (asCSV) or the table to w;
// the CSV header is written at once.
func NewFlowsStream(w io.Writer, asCSV bool) *FlowsStream {
	s := &FlowsStream{w: w}
	if asCSV {
		s.bw = bufio.NewWriterSize(w, 1<<16)
		s.csv = csv.NewWriter(s.bw)
		s.csv.Write(FlowColumns)
		s.csv.Flush() // into bw: the rows are written there
	}
	return s
}

// BeginFile starts the rows of capture file path.
func (s *FlowsStream) BeginFile(path string) {
	s.file, s.next, s.wait, s.tab = path, 0, map[int]string{}, rowArena{}
}

// Put adds a row, in any order.
func (s *FlowsStream) Put(r *FlowRow) {
	if s.csv == nil {
		s.tab.put(r.Conn, r.tableCells())
		return
	}
	s.line = r.AppendCSV(s.line[:0])
	if r.Conn == s.next {
		s.bw.Write(s.line)
		s.next++
		s.flushCSV()
		return
	}
	s.wait[r.Conn] = string(s.line)
}

// flushCSV writes the waiting CSV rows that are next in index order.
func (s *FlowsStream) flushCSV() {
	for {
		line, ok := s.wait[s.next]
		if !ok {
			return
		}
		s.bw.WriteString(line)
		delete(s.wait, s.next)
		s.next++
	}
}

// EndFile writes what is left of the file's rows; ff gives the table's
// header line (format, frames, segments) and its PEP notes and marks.
func (s *FlowsStream) EndFile(ff *FlowsFile) error {
	if s.csv != nil {
		keys := slices.Sorted(maps.Keys(s.wait))
		for _, k := range keys {
			s.bw.WriteString(s.wait[k])
		}
		s.wait = nil
		if err := s.csv.Error(); err != nil {
			return err
		}
		return s.bw.Flush()
	}
	n := s.tab.n
	fmt.Fprintf(s.w, "%s: %s, %d frames, %d TCP segments, %d connections\n", ff.File, ff.Format, ff.Frames, ff.Segments, n)
	head := pepHead(flowsTableHead, *ff)
	if len(ff.pepDirs) > 0 {
		s.pep = true
	}
	width := make([]int, len(head))
	measure := func(cells []string) {
		for i, c := range cells {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	measure(head)
	var cells []string
	for i := range s.tab.off {
		if cells = s.tab.get(i, cells[:0]); cells != nil {
			measure(cells)
		}
	}
	bw := bufio.NewWriter(s.w)
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				bw.WriteString("  ")
			}
			bw.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)))
			bw.WriteString(c)
		}
		bw.WriteByte('\n')
	}
	line(head)
	for i := range s.tab.off {
		if cells = s.tab.get(i, cells[:0]); cells != nil {
			line(cells)
		}
	}
	s.tab = rowArena{}
	if err := bw.Flush(); err != nil {
		return err
	}
	for _, n := range ff.PEPNotes {
		fmt.Fprintln(s.w, "note:", n)
	}
	_, err := fmt.Fprintln(s.w)
	return err
}

// Close ends the output: the table's footer line, or flushing the CSV.
func (s *FlowsStream) Close() error {
	if s.csv != nil {
		s.csv.Flush()
		if err := s.csv.Error(); err != nil {
			return err
		}
		return s.bw.Flush()
	}
	foot := ""
	if s.pep {
		foot = pepFooter([]FlowsFile{{pepDirs: map[int]flows.Direction{0: flows.AtoB}}})
	}
	_, err := fmt.Fprintln(s.w, flowsTableFooter+foot)
	return err
}

// MarkPEP sets a row's acks_from_pep columns from the data direction a
// split-TCP PEP acknowledged (docs/metrics.md#pep).
func (r *FlowRow) MarkPEP(d flows.Direction) { r.PEPAB, r.PEPBA = d == flows.AtoB, d == flows.BtoA }

// NewStreamedFlowsFile is the FlowsFile of a capture whose rows went
// through a FlowsStream: its header facts, warnings and PEP notes.
func NewStreamedFlowsFile(path string, format string, frames, segments int64, warnings []string, pepNotes []string, pepDirs map[int]flows.Direction) FlowsFile {
	return FlowsFile{File: path, Format: format, Frames: frames, Segments: segments, Warnings: warnings, PEPNotes: pepNotes, pepDirs: pepDirs}
}

// rowArena holds table rows by index as bytes in 1 MiB chunks: no
// pointers for the collector to scan, no doubling copies as it grows, and
// about as many bytes as the row's text.
type rowArena struct {
	chunks [][]byte
	off    []uint64 // by index: chunk<<32 | offset+1 of the row's text; 0 = no row
	n      int      // rows held
}

const arenaChunk = 1 << 20

// put stores the cells of row i, joined by \x00 and ended by \x01.
func (a *rowArena) put(i int, cells []string) {
	size := len(cells)
	for _, c := range cells {
		size += len(c)
	}
	k := len(a.chunks) - 1
	if k < 0 || len(a.chunks[k])+size > cap(a.chunks[k]) {
		a.chunks = append(a.chunks, make([]byte, 0, max(arenaChunk, size)))
		k++
	}
	c := a.chunks[k]
	start := len(c)
	for j, cell := range cells {
		if j > 0 {
			c = append(c, 0)
		}
		c = append(c, cell...)
	}
	a.chunks[k] = append(c, 1)
	if i >= len(a.off) {
		a.off = slices.Grow(a.off, i+1-len(a.off))[:i+1]
	}
	if a.off[i] == 0 {
		a.n++
	}
	a.off[i] = uint64(k)<<32 | uint64(start+1)
}

// get appends row i's cells to cells; nil when there is no row i.
func (a *rowArena) get(i int, cells []string) []string {
	o := a.off[i]
	if o == 0 {
		return nil
	}
	b := a.chunks[o>>32][o&(1<<32-1)-1:]
	end := 0
	for b[end] != 1 {
		end++
	}
	return append(cells, strings.Split(string(b[:end]), "\x00")...)
}
