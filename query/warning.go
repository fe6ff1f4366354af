package query

import (
	"fmt"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// WarningKind classifies a Warning.
type WarningKind uint8

const (
	// WarnCapture is a problem the capture reader reported (a record cut
	// short, an unknown link type, …); Text says which.
	WarnCapture WarningKind = iota
	// WarnAckedUnseen: Count ACKs of connection Conn acknowledge data of
	// direction Dir the capture never saw.
	WarnAckedUnseen
	// WarnTimeBackwards: Count frames are stamped earlier than the frame
	// before them (analysed in file order).
	WarnTimeBackwards
	// WarnTimeSpan: the capture spans more than 30 days; a timestamp may
	// jump.
	WarnTimeSpan
	// WarnEmptyRange: the selection's time range holds no data segment or
	// ACK of the chosen connection.
	WarnEmptyRange
	// WarnRefFallback: the reference point asked for does not exist in
	// direction Dir of connection Conn; Ref is the one used instead
	// (Ref.Resolve).
	WarnRefFallback
	// WarnOverheard: an 802.11 capture established the node it was taken
	// on, and Count TCP frames addressed to other nodes were left out as
	// overheard (docs/metrics.md#own-frames); Text says which node and
	// by what evidence.
	WarnOverheard
	// WarnNodeUnknown: an 802.11 capture did not establish the node it was
	// taken on; every frame its radio decoded is analysed as the
	// capture's own, frames addressed to other nodes included.
	WarnNodeUnknown
)

// Warning is a problem that did not stop the analysis. Conn is -1 when it
// concerns the whole capture.
type Warning struct {
	Kind  WarningKind
	File  string
	Conn  int
	Dir   flows.Direction
	Count int64
	// Ref is the reference point used instead (WarnRefFallback).
	Ref  Ref
	Text string
}

// String is the one-line message printed after "warning: ".
func (w Warning) String() string {
	switch w.Kind {
	case WarnAckedUnseen:
		why := "dropped by the capture, or sent past it"
		if w.Text != "" {
			why = w.Text
		}
		return fmt.Sprintf("%s conn %d: %d ACKs acknowledge %s data the capture never saw (%s)", w.File, w.Conn, w.Count, w.Dir, why)
	case WarnTimeBackwards:
		return fmt.Sprintf("%s: %d frames are stamped earlier than the frame before them; analysed in file order", w.File, w.Count)
	case WarnEmptyRange, WarnRefFallback:
		return fmt.Sprintf("%s conn %d: %s", w.File, w.Conn, w.Text)
	}
	return w.Text
}

// AckedUnseen is the WarnAckedUnseen warning of direction d of r (conn
// its index as the caller numbers it), if its ACKs acknowledged data the
// capture never saw; on an 802.11 capture with overheard frames the
// reason given includes data the node only overheard and set aside.
func AckedUnseen(file string, r *tcpanalysis.ConnResult, conn int, d flows.Direction) (Warning, bool) {
	n := r.Dir[d].AckedUnseen
	if n <= 0 {
		return Warning{}, false
	}
	w := Warning{Kind: WarnAckedUnseen, File: file, Conn: conn, Dir: d, Count: n}
	if r.Conn.Overheard > 0 {
		w.Text = "the node may have only overheard that data and set it aside (docs/metrics.md#own-frames), or it was dropped by the capture, or sent past it"
	}
	return w, true
}

// Warnings lists the problems of a capture's analysis: the reader's
// warnings, ACKs of unseen data per connection, on 802.11 the node the
// capture was taken on and the frames it only overheard (or that the node
// is unknown), frames stamped backwards and a capture spanning more than
// 30 days.
func Warnings(rep *tcpanalysis.Report) []Warning {
	var out []Warning
	for _, w := range rep.Warnings {
		out = append(out, Warning{Kind: WarnCapture, File: rep.File, Conn: -1, Text: w})
	}
	for _, r := range rep.Conns {
		for d := range r.Dir {
			if w, ok := AckedUnseen(rep.File, r, r.Conn.Index, flows.Direction(d)); ok {
				out = append(out, w)
			}
		}
	}
	if n := rep.Stats.TimeBackwards; n > 0 {
		out = append(out, Warning{Kind: WarnTimeBackwards, File: rep.File, Conn: -1, Count: n})
	}
	if n := rep.Node; n.Known && rep.Overheard > 0 {
		only := fmt.Sprint(rep.OnlyOverheard)
		var idx []string
		for _, i := range rep.OnlyOverheardIdx {
			idx = append(idx, fmt.Sprint(i))
		}
		if len(idx) > 0 {
			only += ": conn " + strings.Join(idx, ", ")
			if int64(len(idx)) < int64(rep.OnlyOverheard) {
				only += ", …"
			}
		}
		out = append(out, Warning{Kind: WarnOverheard, File: rep.File, Conn: -1, Count: rep.Overheard,
			Text: fmt.Sprintf("%s: 802.11 capture taken on the node with MAC %s (%s): %d TCP frames of %d connections were addressed to other nodes and are left out as overheard (connections holding nothing else, whose acked and goodput bytes come from overheard ACKs: %s); their ACK numbers still count as the peer's (docs/metrics.md#own-frames)",
				rep.File, strings.Join(macs(n.MACs), ", "), n.Why, rep.Overheard, rep.OverheardConns, only)})
	} else if !n.Known && n.Why != "" && rep.Stats.Segments > 0 {
		out = append(out, Warning{Kind: WarnNodeUnknown, File: rep.File, Conn: -1,
			Text: fmt.Sprintf("%s: the node this 802.11 capture was taken on is unknown (%s): every frame its radio decoded is analysed as received, frames addressed to other nodes included (docs/metrics.md#own-frames)", rep.File, n.Why)})
	}
	if st := rep.Stats; st.Frames > 0 && st.Last.Sub(st.First) > 30*24*time.Hour {
		out = append(out, Warning{Kind: WarnTimeSpan, File: rep.File, Conn: -1,
			Text: fmt.Sprintf("%s: the capture spans %.0f days between its first and last frame: a timestamp may jump", rep.File, st.Last.Sub(st.First).Hours()/24)})
	}
	return out
}

// macs formats 802.11 addresses.
func macs(m [][6]byte) []string {
	out := make([]string, len(m))
	for i, a := range m {
		out[i] = capture.MAC(a)
	}
	return out
}
