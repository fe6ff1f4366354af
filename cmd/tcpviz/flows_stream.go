package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/atomicfile"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/report"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// flowsStreamed writes the flows CSV, table or JSON of every capture while
// it is analysed (tcpanalysis.Options.OnDone, export.FlowsStream): a
// connection that is over is kept only as its formatted row (table and
// JSON rows in a temporary file until their capture ends, CSV rows there
// too once 4 MiB of them wait for an earlier one), so memory follows the
// connections open at once
// (docs/robustness.md#finished-connections). The output, warnings and
// notes are those of a whole report (export.WriteFlowsCSV,
// export.WriteFlowsTable, pep.FlowNotes).
func (e *env) flowsStreamed(w io.Writer, args []string, opts tcpanalysis.Options, format export.FlowsFormat, sel query.Selection, pathRTT time.Duration) error {
	// Every capture file is opened before any row is written: with one
	// capture, its error is the run's (exit 2) and nothing is written;
	// with several, one that cannot be read is named on stderr and left
	// out, the others are listed, and the run is partial (exit 3), as
	// report and goodput do.
	several := len(args) > 1
	var failed []string
	left := make([]bool, len(args))
	leaveOut := func(i int, err error) {
		fmt.Fprintf(e.stderr, "warning: %v: left out of the flows output\n", err)
		failed, left[i] = append(failed, displayName(args[i])), true
	}
	for i, path := range args {
		if fi, err := os.Stat(path); path == "-" || err == nil && !fi.Mode().IsRegular() {
			continue // a stream (standard input, a FIFO) is read once
		}
		r, err := capture.Open(path)
		if err != nil {
			if !several {
				return inputError(err)
			}
			leaveOut(i, err)
			continue
		}
		r.Close()
	}
	var spool export.Spool
	if f, cleanup := flowsSpool(); f != nil {
		defer cleanup()
		spool = f
	}
	st := export.NewFlowsStreamAs(w, format, spool)
	if several {
		// Each capture's rows wait until it ends (the CSV's too), so a
		// capture that fails part-way is left out whole.
		st.HoldRows()
	}
	for i, path := range args {
		if left[i] {
			continue
		}
		err := e.flowsStreamFile(st, path, opts, format == export.FlowsJSON, sel, pathRTT)
		var rf readFailure
		if several && errors.As(err, &rf) && !errors.Is(err, context.Canceled) {
			st.DropFile()
			leaveOut(i, rf.err)
			continue
		}
		if err != nil {
			return err
		}
	}
	re := &report.ReadError{Failed: failed, Total: len(args)}
	if len(failed) == len(args) {
		// Nothing read: nothing written (the CSV header waits unflushed),
		// exit 2 (reportErr), -o not replaced.
		return re
	}
	if err := st.Close(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return re // partial: exit 3 once the output is written (flows.go)
	}
	return nil
}

// readFailure marks an error of reading one capture (flowsStreamFile),
// which leaves that capture out of a run over several; any other error
// (writing the output, a signal) ends the run.
type readFailure struct{ err error }

func (f readFailure) Error() string { return f.err.Error() }
func (f readFailure) Unwrap() error { return f.err }

// flowsSpool is the temporary file where the flows table and JSON keep a
// capture's rows, and the CSV its rows held back; nil (rows kept in
// memory) when none can be made. Where the system allows it the file is
// unlinked at once, so nothing is left behind whatever ends the process;
// else cleanup removes it.
func flowsSpool() (*os.File, func()) {
	f, err := os.CreateTemp("", "tcpviz-flows-*.rows")
	if err != nil {
		return nil, nil
	}
	if os.Remove(f.Name()) == nil {
		return f, func() { f.Close() }
	}
	atomicfile.Track(f.Name()) // removed on SIGINT/SIGTERM too
	return f, func() { f.Close(); os.Remove(f.Name()); atomicfile.Untrack(f.Name()) }
}

// flowsStreamFile streams one capture's rows into st.
// withJSON builds the rows' JSON maps (export.NewFlowRow).
// sel's --port and --host leave out the connections that do not match:
// no row, note or warning of theirs; the others keep their indexes.
// pathRTT (--path-rtt; 0: unknown) is evidence for every PEP verdict
// (pep.Options.PathRTT). A connection whose verdict needs the
// connection's detail or the capture's link layer (pep.Recheck) has its
// row held until the second look, so that its mark ("PEP", "PEP?" or
// none) and note are the final verdict's.
func (e *env) flowsStreamFile(st *export.FlowsStream, path string, opts tcpanalysis.Options, withJSON bool, sel query.Selection, pathRTT time.Duration) error {
	name := displayName(path) // "stdin" for "-", in every row and message
	st.BeginFile(name)
	var (
		notes    = map[int]string{} // PEP notes by connection (likely)
		possible possiblePEPs       // the possible PEPs: their count, the lowest indexes' verdicts (pepNotes)
		dirs     = map[int]flows.Direction{}
		maybe    = map[int]flows.Direction{} // one possible PEP per data direction: the table's heading (export.NewStreamedFlowsFile)
		recheck  = map[int]*export.FlowRow{} // rows held for a second PEP pass
		rc       = pep.Recheck{PathRTT: pathRTT}
		links    pep.Links // the capture's link layer, from every connection (all of them: hosts, not traffic)
		unseen   []query.Warning
		unknown  []int // the smallest indices of connections without a known window scale
		nUnknown int
		notEnd   []int // the smallest indices of connections the capturing node was neither end of
		nNotEnd  int
		cleared  []int // the smallest indices of connections --path-rtt cleared of a possible PEP
		nCleared int
	)
	opts.ReuseResults = true           // OnDone keeps copies only (a row, notes)
	evidence := make([]pep.Item, 0, 8) // every verdict's criteria, one at a time
	var at tcpanalysis.Report          // the capture's start, for export.NewFlowRow (which reads nothing else)
	opts.OnDone = func(r *tcpanalysis.ConnResult, start capture.Timestamp) {
		i := r.Conn.Index
		links.AddConn(r)
		if !sel.Match(r) {
			st.Skip(i)
			return
		}
		if r.Conn.Half[0].WScale < 0 || r.Conn.Half[1].WScale < 0 {
			nUnknown++
			if k, _ := slices.BinarySearch(unknown, i); k < maxConnNotes {
				unknown = slices.Insert(unknown, k, i)
				unknown = unknown[:min(len(unknown), maxConnNotes)]
			}
		}
		if notAnEnd(r) {
			nNotEnd++
			if k, _ := slices.BinarySearch(notEnd, i); k < maxConnNotes {
				notEnd = slices.Insert(notEnd, k, i)
				notEnd = notEnd[:min(len(notEnd), maxConnNotes)]
			}
		}
		for d := range r.Dir {
			if w, ok := query.AckedUnseen(name, r, i, flows.Direction(d)); ok {
				unseen = append(unseen, w)
			}
		}
		at.Start = start
		row := export.NewFlowRow(name, &at, r, withJSON)
		v := pep.AcknowledgerIn(r, evidence, pathRTT)
		if v.PathCleared() {
			nCleared++
			if k, _ := slices.BinarySearch(cleared, i); k < maxConnNotes {
				cleared = slices.Insert(cleared, k, i)
				cleared = cleared[:min(len(cleared), maxConnNotes)]
			}
		}
		switch {
		case rc.Add(r, v):
			held := row        // a copy, so that row itself stays off the heap
			recheck[i] = &held // given to st after the second pass: the rows after it wait
			return
		case v.Likely:
			dirs[i] = v.Dir
			notes[i] = v.NoteOn(i)
			row.MarkPEP(v.Dir)
		case v.Possible:
			possible.add(i, v, maybe)
			row.MarkPEPPossible(v.Dir)
		}
		st.Put(&row)
	}
	rep, err := e.analyzeFile(path, opts)
	if err != nil {
		return readFailure{inputError(err)}
	}
	// Warnings in the order query.Warnings gives them for a whole report.
	ws := query.Warnings(rep)
	slices.SortFunc(unseen, func(a, b query.Warning) int { return a.Conn*2 + int(a.Dir) - b.Conn*2 - int(b.Dir) })
	k := 0
	for k < len(ws) && ws[k].Kind == query.WarnCapture {
		k++
	}
	e.warn(slices.Concat(ws[:k], unseen, ws[k:]))
	// A second look at the held connections (pep.Recheck, the rule of
	// pep.FlowNotes and the campaign): their detail kept, through the same
	// --filter, and the capture's link layer as the first pass read it
	// (links: every connection's sources, the frames announcing an
	// address). A stream (standard input, a FIFO) is read once: the first
	// pass's verdicts of the detail kind stand, and a note says so.
	links.AddOwn(rep.LinkOwn, rep.LinkOwnCut)
	rc.Links = &links
	if n := rc.Rereads(); n > 0 && !pep.Rereadable(path) {
		fmt.Fprintf(e.stderr, "note: %s is read once: the split-TCP PEP verdicts of %d connections rest on the first pass (RTT median estimates, no zero-window detail), which a second read would have checked; give the capture as a file for them (docs/metrics.md#pep)\n", name, n)
	}
	rc.Run(path, opts, e.analyzeFile, func(i int, v pep.Verdict) {
		switch {
		case v.Likely:
			dirs[i] = v.Dir
			recheck[i].MarkPEP(v.Dir)
		case v.Possible:
			possible.add(i, v, maybe)
			recheck[i].MarkPEPPossible(v.Dir)
			return
		}
		if n := v.NoteOn(i); n != "" {
			notes[i] = n
		}
	})
	order := pepNotes(notes, &possible)
	for _, i := range slices.Sorted(maps.Keys(recheck)) {
		st.Put(recheck[i])
	}
	wscaleNote(e.stderr, name, nUnknown, unknown)
	if nCleared > 0 {
		list := connList(cleared, nCleared > len(cleared))
		if nCleared > len(cleared) {
			list = fmt.Sprintf("%d connections (%s)", nCleared, list)
		}
		fmt.Fprintf(e.stderr, "note: %s %s: the acknowledger is on the sender's link, and --path-rtt %v decided it is the far end (a connection RTT of at least a quarter of it): not marked PEP?, goodput end to end (docs/metrics.md#pep)\n", name, list, pathRTT)
	}
	if rep.Node.Known {
		notEndNote(e.stderr, name, nNotEnd, notEnd)
	}
	ff := export.NewStreamedFlowsFile(name, string(rep.Format), rep.Stats.Frames, rep.Stats.Segments, rep.Warnings, order, dirs, maybe)
	ff.Stats = rep.Stats
	return st.EndFile(&ff)
}

// possiblePEPs are one capture's connections a PEP may have acknowledged
// (pep.Verdict.Possible), in bounded memory however many: their number,
// and the verdicts of the 2 × maxConnNotes lowest indexes, the ones
// pepNotes writes or names.
type possiblePEPs struct {
	n    int
	v    map[int]pep.Verdict
	top  int     // the highest index in v
	gave [2]bool // by data direction: some connection gave it (add's maybe)
}

// add records connection i's possible PEP v (kept: pep.Verdict.Keep), and
// in maybe (which only add writes) its data direction when no connection
// gave it yet.
func (p *possiblePEPs) add(i int, v pep.Verdict, maybe map[int]flows.Direction) {
	p.n++
	if !p.gave[v.Dir] {
		p.gave[v.Dir] = true
		maybe[i] = v.Dir
	}
	if p.v == nil {
		p.v = map[int]pep.Verdict{}
	}
	if len(p.v) == 2*maxConnNotes {
		if i > p.top {
			return // past the lowest indexes: connections mostly end in index order
		}
		delete(p.v, p.top)
		p.v[i] = v.Keep()
		p.top = i
		for k := range p.v {
			p.top = max(p.top, k)
		}
		return
	}
	p.v[i] = v.Keep()
	p.top = max(p.top, i)
}

// pepNotes orders one capture's PEP notes by connection index: the
// likely PEPs' (notes) and the possible ones' (written here). A capture
// taken beside a sender of many connections to hosts on its link (a LAN
// client) may hold a possible PEP behind each: past maxConnNotes of
// those, one note counts and names the rest, which are marked "PEP?" for
// the same reason as the first, and their notes are not written.
func pepNotes(notes map[int]string, possible *possiblePEPs) []string {
	all := slices.Sorted(maps.Keys(notes))
	for i := range possible.v {
		all = append(all, i)
	}
	slices.Sort(all)
	var out []string
	var rest []int
	n := 0
	for _, i := range all {
		if v, ok := possible.v[i]; ok {
			if n++; n > maxConnNotes {
				rest = append(rest, i)
				continue
			}
			out = append(out, v.NoteOn(i))
			continue
		}
		out = append(out, notes[i])
	}
	if more := possible.n - maxConnNotes; more > 0 {
		list := connList(rest, false)
		if more > maxConnNotes {
			list = fmt.Sprintf("%d more connections (%s)", more, connList(rest[:3], true))
		}
		out = append(out, fmt.Sprintf("%s: data may be acknowledged by a split-TCP PEP as well (receiver-hops open: each acknowledger is on its sender's link and nothing in the capture tells the receiver from a PEP there): marked PEP?; --path-rtt or a capture behind the acknowledgers decides (docs/metrics.md#pep).", list))
	}
	return out
}

// wscaleNote prints flows' one note per file about the n connections
// without a known window scale; first are the smallest of their indices
// (up to maxConnNotes).
func wscaleNote(w io.Writer, path string, n int, first []int) {
	switch {
	case n == 1:
		fmt.Fprintf(w, "note: %s conn %d: window scale unknown (handshake not captured); windows are not converted to bytes; --wscale N overrides\n", path, first[0])
	case n > 1 && n <= maxConnNotes:
		fmt.Fprintf(w, "note: %s %s: window scale unknown (handshake not captured); windows are not converted to bytes; --wscale N overrides\n", path, connList(first, false))
	case n > maxConnNotes:
		fmt.Fprintf(w, "note: %s: %d connections without a captured handshake (%s): window scale unknown, windows not converted to bytes; --wscale N overrides\n", path, n, connList(first[:maxConnNotes], true))
	}
}

// notAnEnd reports that the capturing 802.11 node was neither end of r:
// its radio sent neither r's data nor its ACKs (tcpanalysis.RadioOf: a
// relay, or none), yet the capture holds frames of r, its own or
// overheard. Meaningful only on a capture whose node is known
// (Report.Node.Known); elsewhere no frame is known as the node's own.
func notAnEnd(r *tcpanalysis.ConnResult) bool {
	switch tcpanalysis.RadioOf(r, flows.AtoB) {
	case tcpanalysis.RadioRelay:
		return true
	case tcpanalysis.RadioNone:
		return r.Dir[0].Pkts+r.Dir[1].Pkts > 0 || r.Conn.Overheard > 0
	}
	return false
}

// notEndNote prints flows' one note per 802.11 capture about the n
// connections its node was neither end of (notAnEnd); first are the
// smallest of their indices (up to maxConnNotes). At ns-3 aodv r1 node 5,
// flow 0 (38 frames relayed there) showed a goodput of 815.7 kbit/s from
// the ACKs it saw, beside the sink's 817.2, with nothing to tell them
// apart.
func notEndNote(w io.Writer, path string, n int, first []int) {
	if n == 0 {
		return
	}
	list := connList(first, false)
	if n > maxConnNotes {
		list = fmt.Sprintf("%d connections (%s)", n, strings.TrimPrefix(connList(first, true), "connections "))
	}
	fmt.Fprintf(w, "note: %s %s: the capturing node was neither end (it relayed or only overheard their frames): their packets, bytes and goodput are what passed here, not the connection's; use the capture at a sender or receiver (docs/metrics.md#own-frames)\n", path, list)
}
