package figures

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/internal/atomicfile"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// SeqOptions is what the time-sequence (Stevens) graph of v shows: v's
// direction and its --from/--to window (as offsets from the connection's
// first packet, the graph's x origin, as tcptrace draws it), run naming
// the run in the title, and an ACK line named as the PEP's
// (plot.PEPAckName, plot.PEPAckNameProven) when a split-TCP PEP
// acknowledged the data, or as either's (plot.PEPAckNamePossible) when
// one may have (PEPVerdict; the same rule as Rate's legend).
func SeqOptions(v *query.View, run string) plot.TimeSeqOptions {
	r, d, sel := v.Conn, v.Dir, v.Sel
	o := plot.TimeSeqOptions{Dir: d, From: v.Ref.Sub(r.Conn.First) + sel.From, Run: run}
	if sel.To > 0 {
		o.To = v.Ref.Sub(r.Conn.First) + sel.To
	}
	switch pv := PEPVerdict(v); {
	case pv.Proven():
		o.AckName = plot.PEPAckNameProven // the legend as sure as the note
	case pv.Likely:
		o.AckName = plot.PEPAckName
	case pv.Possible:
		o.AckName = plot.PEPAckNamePossible
	}
	o.Vantage = strings.Join(v.Caveats(query.OutSeq).Titles, "\n")
	return o
}

// PEPVerdict is the one-capture split-TCP PEP verdict on v's connection
// and direction that every figure, table and note of v names its
// acknowledged bytes by: pep.DetectFile with the capture v.File (its link
// layer read when it decides) and the path RTT given (v.PathRTT).
func PEPVerdict(v *query.View) pep.Verdict {
	return pep.DetectIn(v.Report, v.Conn, v.Dir, pep.Options{PathRTT: v.PathRTT})
}

// Seq draws the time-sequence graph of v's connection with o
// (plot.TimeSeq). To keep the peak memory of a large capture down it
// collects the analysis' garbage first and drops the connection's series
// from v once the figure holds what it draws: v.Conn.Series is nil
// afterwards. Errors: those of plot.TimeSeq.
func Seq(v *query.View, o plot.TimeSeqOptions) (plot.Figure, error) {
	runtime.GC()
	p, err := plot.TimeSeq(v.Conn, o)
	if err != nil {
		return p, err
	}
	v.Conn.Series = nil
	return p, nil
}

// WriteSeq writes the time-sequence graph of v's connection to path,
// atomically (internal/atomicfile): its points (export.SeqPoints, schema
// docs/schema.md#seq) for a .csv or .json path, else the figure Seq draws
// with o (whose range must be v's selection's) in the format of path's
// extension (plot.FormatOf) and style st. Errors: an unknown extension,
// those of Seq, and write errors naming path.
func WriteSeq(path string, v *query.View, o plot.TimeSeqOptions, st plot.Style) error {
	_, err := WriteSeqDrawn(path, v, o, st)
	return err
}

// WriteSeqDrawn is WriteSeq that also reports, for a figure, whether it
// draws anything: a legend entry, which lists only what shows within the
// axes (an ACK line holding across a zoomed window from before it counts,
// as it is drawn). Points (.csv, .json) report true.
func WriteSeqDrawn(path string, v *query.View, o plot.TimeSeqOptions, st plot.Style) (drawn bool, err error) {
	ext := strings.ToLower(filepath.Ext(path))
	drawn = true
	err = atomicfile.Write(path, func(f *os.File) error {
		switch ext {
		case ".csv":
			return export.WriteSeqCSV(f, v, export.SeqPoints(v))
		case ".json":
			return export.WriteSeqJSON(f, v, export.SeqPoints(v))
		}
		format := plot.FormatOf(path)
		if format == "" {
			return fmt.Errorf("unknown output format %q: use .png, .svg, .pdf, .csv or .json", ext)
		}
		p, err := Seq(v, o)
		if err != nil {
			return err
		}
		drawn = len(p.Legend) > 0
		return p.SaveStyle(f, format, st)
	})
	return drawn, err
}
