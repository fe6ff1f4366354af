package report

// vantage.go holds what the report says beside its panels about where the
// capture was taken, and the colours it draws each series in: both from
// the packages the verbs and figures take them from (query's notes and
// title lines, pep's note, plot's colours), never copied.

import (
	"fmt"
	"image/color"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// caveatsMeta is what the page shows beside one panel about the capture
// point's vantage (query.Caveats): title lines in the panel's heading,
// notes and warnings under it, each the verb's own sentence.
type caveatsMeta struct {
	Titles   []string `json:"titles,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// panelOutputs maps the report's panels to the verb whose output they
// draw (the "more" panel has none). pepPanels are those whose verb ends
// with the PEP's note (pepVerdict's, as the CLI's pep.DetectIn): seq, rtt,
// tput and window.
var (
	panelOutputs = map[string]query.Output{"seq": query.OutSeq, "rtt": query.OutRTT, "tput": query.OutRate, "win": query.OutWindow, "ev": query.OutEvents}
	pepPanels    = map[string]bool{"seq": true, "rtt": true, "tput": true, "win": true}
)

// caveatsOf returns, per panel id, what the verb of that panel says about
// the vantage of v's connection and direction (query.View.Caveats, then
// the PEP's note where the verb prints it); panels with nothing to say are
// left out, nil when none has.
func caveatsOf(v *query.View) map[string]caveatsMeta {
	var out map[string]caveatsMeta
	pepNote := pepVerdict(v.Report, v.Conn, v.Dir, v.PathRTT).NoteOn(v.Conn.Conn.Index) // the picker's and legends' verdict, with the link layer
	for panel, o := range panelOutputs {
		c := v.Caveats(o)
		if pepNote != "" && pepPanels[panel] {
			c.Notes = append(c.Notes, pepNote)
		}
		if c.Empty() {
			continue
		}
		if out == nil {
			out = map[string]caveatsMeta{}
		}
		out[panel] = caveatsMeta{Titles: c.Titles, Notes: c.Notes, Warnings: c.Warnings}
	}
	return out
}

// captureNode is what every verb warns about the node an 802.11 capture
// was taken on (query.Warnings: WarnOverheard, the node and the frames it
// only overheard; WarnNodeUnknown, every frame analysed as received),
// the vantage of all its connections; nil for other captures.
func captureNode(rep *tcpanalysis.Report) []string {
	var out []string
	for _, w := range query.Warnings(rep) {
		if w.Kind == query.WarnOverheard || w.Kind == query.WarnNodeUnknown {
			out = append(out, w.String())
		}
	}
	return out
}

// vantageOf is the picker's and compare mode's word for the capture point
// of direction d of r (query.VantageOf), "" for query.VantageNone; why is
// the title line a figure of that direction adds (the first of
// query.VantageTitle, RTTTitle and InFlightTitle that says something),
// and own whether its progress and goodput are the connection's
// (query.Vantage.OwnNumbers).
func vantageOf(r *tcpanalysis.ConnResult, d flows.Direction) (word, why string, own bool) {
	v := query.VantageOf(r, d)
	if v == query.VantageNone {
		return "", "", true
	}
	for _, t := range []string{query.VantageTitle(r, d), query.RTTTitle(r, d), query.InFlightTitle(r, d)} {
		if t != "" {
			why = t
			break
		}
	}
	return v.String(), why, v.OwnNumbers()
}

// seriesColours are the colours of the report's series by id: those of
// the figures drawing the same series (package plot: the time-sequence
// graph's, the window, rate and RTT figures'), so that a series looks the
// same in a figure and in the report. Series no figure draws on its own
// have the report's: zero-window probes (the time-sequence graph draws
// them as data), the reverse direction's ts samples (the RTT figure draws
// them in a panel of their own, in ColRTTTS) and zero-window periods.
// Event lanes take their class's colour (eventColour); compare's runs and
// the "more" panel's series the palette (meta.Palette).
var seriesColours = map[string]color.Color{
	"seg": plot.ColData, "synfin": plot.ColControl, "retx": plot.ColRetx, "ooo": plot.ColOOO,
	"ack": plot.ColAck, "edge": plot.ColWindow, "sack": plot.ColSACK, "probe": color.NRGBA{140, 86, 75, 255},
	"rtt_ack": plot.ColRTTACK, "rtt_ts": plot.ColRTTTS, "rtt_hs": plot.ColRTTHandshake, "rtt_ts_rev": plot.Colour(3),
	"tput": plot.ColThroughput, "goodput": plot.ColGoodput,
	"rwnd": plot.ColRwnd, "flight": plot.ColInFlight, "flight_sack": plot.ColInFlightSACK,
	"zw": color.NRGBA{140, 86, 75, 64},
}

// eventColour is the colour of event class c's lane: the events figure's
// (plot.Colour of c's place in tcpanalysis.Classes).
func eventColour(c tcpanalysis.Class) color.Color {
	for i, x := range tcpanalysis.Classes() {
		if x == c {
			return plot.Colour(i)
		}
	}
	return plot.Colour(0)
}

// paletteSize is how many of plot's palette colours the page gets.
const paletteSize = 8

// palette is plot.Colour(0…paletteSize-1) as CSS colours: compare's run
// i is drawn in Colour(i), as in compare's figures.
func palette() []string {
	out := make([]string, paletteSize)
	for i := range out {
		out[i] = cssColour(plot.Colour(i))
	}
	return out
}

// cssColour writes c as a CSS colour: #rrggbb when opaque, else rgba().
func cssColour(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	if n.A == 255 {
		return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B)
	}
	return fmt.Sprintf("rgba(%d,%d,%d,%.3g)", n.R, n.G, n.B, float64(n.A)/255)
}
