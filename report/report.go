package report

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

var (
	//go:embed assets/uplot/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uplot/uPlot.min.css
	uplotCSS string
	//go:embed assets/uplot/LICENSE
	uplotLicense string
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/report.css
	reportCSS string
	//go:embed assets/page.html
	pageHTML string
)

// Capture is one analysed capture. Connections whose Series was not kept
// are listed in the picker with their summary row but have no panels.
type Capture struct {
	// Label names the capture in the picker and in compare mode; the
	// file's base name when empty.
	Label  string
	Report *tcpanalysis.Report
}

// Pick names one data direction of one connection: Capture indexes the
// captures given to Write, Conn is the connection index.
type Pick struct {
	Capture, Conn int
	Dir           flows.Direction
	// Label names the run in compare mode; "capture#conn" when empty.
	Label string
	// At, if set, is where compare mode aligns this run, a capture time
	// on its capture's clock: the server-side half of a client/server
	// pair is aligned where its client side is (compare.Run.Ref), so that
	// what the server received lines up with what the client sent. Zero:
	// the connection's own Options.Align point.
	At capture.Timestamp
	// EndToEndKbps, if not NaN or 0, is the run's end-to-end goodput as
	// 'tcpviz compare' prints it (compare.Run.EndToEndKbps, over the
	// receiving application's interval), shown next to the run's label:
	// the picker's goodput column is over the whole connection, as
	// 'tcpviz flows'.
	EndToEndKbps float64
	// HalfOf, if not nil, is the index in Options.Compare of the run this
	// one is the server-side half of: compare mode draws it in that run's
	// colour, dashed.
	HalfOf *int
}

// Options configure Write.
type Options struct {
	// Title is the page title; the capture labels when empty.
	Title string
	// PathRTT is the path's end-to-end RTT (--path-rtt; 0: unknown):
	// evidence for every capture's split-TCP PEP verdict, as the verbs
	// judge with it (docs/metrics.md#pep).
	PathRTT time.Duration
	// Open is the connection shown first; nil shows the one that carried
	// most payload bytes (query.PayloadBytes), in its data direction
	// (query.DataDirection), as the verbs pick them.
	Open *Pick
	// Compare, with two or more picks, opens the page in compare mode
	// overlaying these runs, each aligned at Align.
	Compare []Pick
	// Align is where compare mode aligns runs: "bulk" (the first segment
	// with ≥ 512 B payload; also when empty), "data" (the first data
	// segment) or "syn" (the connection's first packet).
	Align string
	// Focus names the panel the page scrolls to when it opens: seq, rtt,
	// tput, win or ev; empty for the top.
	Focus string
	// X, when set, is the time range the page opens zoomed to, in seconds
	// on its x axis (since the connection's first packet; in compare mode
	// since the runs' reference point): the verbs' --from/--to window. An
	// address with x= overrides it.
	X *[2]float64
}

// ErrNoSeries means no connection of the captures had its series kept, so
// the report would have no panel.
var ErrNoSeries = errors.New("no connection with series to draw")

type seriesMeta struct {
	ID     string      `json:"id"`
	Panel  string      `json:"panel"`
	Name   string      `json:"name"`
	Shape  string      `json:"shape"`
	Keep   bool        `json:"keep,omitempty"`
	Levels []levelMeta `json:"levels"`
	BinUS  []int64     `json:"bin_us,omitempty"`
	// Unit and YScale: a series of the "more" panel (any metric of
	// package query) stores value / YScale as integers, in Unit.
	Unit   string  `json:"unit,omitempty"`
	YScale float64 `json:"y_scale,omitempty"`
	// Color is the series' CSS colour, the figures' for the same series
	// (seriesColours); empty for a "more" series (the palette's).
	Color string `json:"color,omitempty"`
}

type levelMeta struct {
	X  *col `json:"x"`
	Y  *col `json:"y"`
	Y2 *col `json:"y2,omitempty"`
	F  *col `json:"f,omitempty"`
	N  *col `json:"n,omitempty"`
}

type viewMeta struct {
	Conn  int    `json:"conn"` // index into meta.Conns
	Dir   string `json:"dir"`  // ab or ba
	Src   string `json:"src"`
	Dst   string `json:"dst"`
	DurUS int64  `json:"dur_us"`
	// RefUS is where compare mode aligns this view (Options.Align), µs
	// since the connection's first packet.
	RefUS  int64 `json:"ref_us"`
	WScale bool  `json:"wscale_known"`
	// PEPAcked: this direction's ACKs come from a split-TCP PEP, so its
	// newly acknowledged bytes are not goodput (PEPAcceptedName);
	// PEPPossible: they may (PEPPossibleName).
	PEPAcked    bool `json:"pep_acked,omitempty"`
	PEPPossible bool `json:"pep_possible,omitempty"`
	// Caveats are, per panel id, what the verb of that panel says about
	// the capture point's vantage (caveatsOf); Vantage names it in a word
	// (vantageOf), empty when nothing is flagged, and OwnNumbers is false
	// where the connection's progress and goodput cannot be read here.
	Caveats    map[string]caveatsMeta `json:"caveats,omitempty"`
	Vantage    string                 `json:"vantage,omitempty"`
	OwnNumbers bool                   `json:"own_numbers"`
	Series     []seriesMeta           `json:"series"`
}

type captureMeta struct {
	Label    string   `json:"label"`
	File     string   `json:"file"`
	Format   string   `json:"format"`
	Frames   int64    `json:"frames"`
	Warnings []string `json:"warnings,omitempty"`
	// Node is what the verbs warn about the 802.11 node the capture was
	// taken on (captureNode): the page shows it above the panels of the
	// capture's connections.
	Node []string `json:"node,omitempty"`
}

type compareMeta struct {
	View  int    `json:"view"`
	Label string `json:"label"`
	// RefUS overrides the view's ref_us in compare mode (Pick.At).
	RefUS *int64 `json:"ref_us,omitempty"`
	// E2E is Pick.EndToEndKbps.
	E2E *float64 `json:"e2e_kbps,omitempty"`
	// With is the view of the run this one is the server-side half of
	// (Pick.HalfOf): drawn in its colour, dashed.
	With *int `json:"with,omitempty"`
}

type meta struct {
	Title    string        `json:"title"`
	Captures []captureMeta `json:"captures"`
	Conns    []summary     `json:"conns"`
	Views    []viewMeta    `json:"views"`
	Open     int           `json:"open"`
	Compare  []compareMeta `json:"compare,omitempty"`
	Focus    string        `json:"focus,omitempty"`
	Align    string        `json:"align,omitempty"`
	X        *[2]float64   `json:"x,omitempty"`
	// Palette are plot's palette colours (palette): compare's runs and
	// the "more" panel's series.
	Palette []string `json:"palette"`
}

var shapeNames = [...]string{shapeBars: "bars", shapeLine: "line", shapePoints: "points", shapeLane: "lane", shapeSpan: "span"}

// Write writes the report for caps to w: one HTML file with everything
// embedded. It returns ErrNoSeries when no connection has series, and an
// error for a Pick that names no kept connection.
func Write(w io.Writer, caps []Capture, o Options) error {
	switch o.Align {
	case "", "bulk", "data", "syn":
	default:
		return fmt.Errorf("report: align %q: want bulk, data or syn", o.Align)
	}
	m := meta{Title: o.Title, Open: -1, Focus: o.Focus, Align: o.Align, X: o.X, Palette: palette()}
	if o.X != nil && !(o.X[1] > o.X[0]) {
		m.X = nil
	}
	var b blob
	viewOf := map[[3]int]int{} // capture, conn, dir → view
	var best int64 = -1
	labels := captureLabels(caps)
	for ci, c := range caps {
		rep := c.Report
		label := labels[ci]
		m.Captures = append(m.Captures, captureMeta{Label: label, File: rep.File, Format: string(rep.Format), Frames: rep.Stats.Frames, Warnings: rep.Warnings, Node: captureNode(rep)})
		for _, r := range rep.Conns {
			s := summarize(ci, rep, r, o.PathRTT)
			if r.Series != nil {
				// The data direction as every verb chooses it
				// (query.DataDirection), then the other one.
				main := query.DataDirection(r)
				for _, d := range []flows.Direction{main, main.Reverse()} {
					if d != main && r.Dir[d].DataPkts == 0 {
						continue
					}
					v := buildView(&b, rep, r, d, o.Align, o.PathRTT)
					v.Conn = len(m.Conns)
					viewOf[[3]int{ci, r.Conn.Index, int(d)}] = len(m.Views)
					s.Views = append(s.Views, len(m.Views))
					if d == main && query.PayloadBytes(r) > best { // query's "pick the largest" rule
						best, m.Open = query.PayloadBytes(r), len(m.Views)
					}
					m.Views = append(m.Views, v)
				}
			}
			m.Conns = append(m.Conns, s)
		}
	}
	if len(m.Views) == 0 {
		return ErrNoSeries
	}
	find := func(p Pick) (int, error) {
		v, ok := viewOf[[3]int{p.Capture, p.Conn, int(p.Dir)}]
		if !ok {
			return 0, fmt.Errorf("report: capture %d conn %d dir %s has no series", p.Capture, p.Conn, p.Dir)
		}
		return v, nil
	}
	if o.Open != nil {
		v, err := find(*o.Open)
		if err != nil {
			return err
		}
		m.Open = v
	}
	for _, p := range o.Compare {
		v, err := find(p)
		if err != nil {
			return err
		}
		label := p.Label
		if label == "" {
			label = fmt.Sprintf("%s#%d", m.Captures[p.Capture].Label, p.Conn)
		}
		cm := compareMeta{View: v, Label: label}
		if p.At != 0 {
			for _, r := range caps[p.Capture].Report.Conns {
				if r.Conn.Index == p.Conn {
					ref := us(p.At.Sub(r.Conn.First))
					cm.RefUS = &ref
				}
			}
		}
		if k := p.EndToEndKbps; k > 0 && !math.IsInf(k, 0) {
			cm.E2E = &k
		}
		if h := p.HalfOf; h != nil {
			if *h < 0 || *h >= len(m.Compare) {
				return fmt.Errorf("report: compare run %d: HalfOf %d names no earlier run", len(m.Compare), *h)
			}
			cm.With = &m.Compare[*h].View
		}
		m.Compare = append(m.Compare, cm)
	}
	if m.Title == "" {
		var ls []string
		for _, c := range m.Captures {
			ls = append(ls, c.Label)
		}
		m.Title = "tcpviz report: " + strings.Join(ls, ", ")
	}
	gz, err := b.gzipped()
	if err != nil {
		return fmt.Errorf("report: compress series: %w", err)
	}
	js, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	// The metadata holds a summary row per connection: on a capture of
	// 80 000 connections that is megabytes of JSON, a tenth of it gzipped.
	var mb blob
	mb.buf.Write(js)
	mgz, err := mb.gzipped()
	if err != nil {
		return fmt.Errorf("report: compress metadata: %w", err)
	}
	return page(w, m.Title, mgz, gz)
}

// captureLabels returns each capture's label: its Label, else its file's
// base name, with as many parent folders as it takes to tell captures of
// the same name apart (pep-off/client.pcap, pep-on/client.pcap).
func captureLabels(caps []Capture) []string {
	out := make([]string, len(caps))
	for depth := 1; depth <= 8; depth++ {
		seen := map[string]int{}
		for i, c := range caps {
			out[i] = c.Label
			if out[i] == "" {
				parts := strings.Split(filepath.ToSlash(filepath.Clean(c.Report.File)), "/")
				out[i] = strings.Join(parts[max(0, len(parts)-depth):], "/")
			}
			seen[out[i]]++
		}
		unique := true
		for _, n := range seen {
			unique = unique && n == 1
		}
		if unique {
			break
		}
	}
	return out
}

// buildView stores the series of direction d of r, a connection of rep,
// in b: the whole connection as package query gives it (query.ConnView),
// in intervals of about 1/16384 of the connection, at least 1 ms, rounded
// to 1, 2 or 5 × 10^k µs.
func buildView(b *blob, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, d flows.Direction, align string, pathRTT time.Duration) viewMeta {
	qv := query.ConnView(rep, r, d, niceBin(r.Conn.Duration()/16384))
	qv.PathRTT = pathRTT // the PEP verdict of the notes and legends (extract, caveatsOf)
	pv := pepVerdict(rep, r, d, pathRTT)
	v := viewMeta{Dir: d.String(), Src: r.Conn.Half[d].Addr.String(), Dst: r.Conn.Half[d.Reverse()].Addr.String(),
		DurUS: us(r.Conn.Duration()), RefUS: alignAt(r, d, align), WScale: r.Conn.Half[d.Reverse()].WScale >= 0,
		PEPAcked: pv.Likely, PEPPossible: pv.Possible, Caveats: caveatsOf(qv)}
	v.Vantage, _, v.OwnNumbers = vantageOf(r, d)
	for _, s := range extract(qv) {
		sm := seriesMeta{ID: s.ID, Panel: s.Panel, Name: s.Name, Shape: shapeNames[s.Shape], Keep: s.Keep, Unit: string(s.Unit), YScale: s.YScale}
		if c := s.Colour; c != nil {
			sm.Color = cssColour(c)
		} else if c := seriesColours[s.ID]; c != nil {
			sm.Color = cssColour(c)
		}
		var lv []level
		if s.BinUS > 0 {
			lv, sm.BinUS = sumLevels(s.L0, s.BinUS)
		} else {
			lv = pyramid(s.L0, s.Shape, s.Keep)
		}
		for _, l := range lv {
			sm.Levels = append(sm.Levels, levelMeta{X: b.add(l.X), Y: b.add(l.Y), Y2: b.add(l.Y2), F: b.add(l.F), N: b.add(l.N)})
		}
		v.Series = append(v.Series, sm)
	}
	return v
}

// page fills the HTML template. Every embedded text is escaped for its
// place: the metadata (gzipped JSON) and the series blob as base64, the
// title as HTML.
func page(w io.Writer, title string, metaGz, gz []byte) error {
	var buf bytes.Buffer
	r := strings.NewReplacer(
		"{{TITLE}}", htmlEscape(title),
		"{{UPLOT_CSS}}", uplotCSS,
		"{{REPORT_CSS}}", reportCSS,
		"{{UPLOT_LICENSE}}", strings.ReplaceAll(uplotLicense, "--", "- -"),
		"{{UPLOT_JS}}", uplotJS,
		"{{REPORT_JS}}", reportJS,
		"{{META}}", base64.StdEncoding.EncodeToString(metaGz),
		"{{BLOB}}", base64.StdEncoding.EncodeToString(gz),
	)
	if _, err := r.WriteString(&buf, pageHTML); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
