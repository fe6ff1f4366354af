package study

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/stats"
)

// TestWriteTeXAndFigures: the caption names the campaign (escaped), the
// per-run metric, the CI level and n; without a pairing label there is no
// paired table and no paired figure.
func TestWriteTeXAndFigures(t *testing.T) {
	tab := &campaign.Tables{
		Groups: []stats.GroupRow{{Label: "aodv", N: 2, Mean: 500, Lo: 400, Hi: 600}, {Label: "olsr", N: 2, Mean: 700, Lo: 650, Hi: 750}},
		Values: [][]float64{{450, 550}, {680, 720}},
	}
	s := Spec{Name: "runs_a & b", Group: "protocol", PerRun: "sum", Level: 0.95}
	var b bytes.Buffer
	if err := WriteTeX(&b, s, tab); err != nil {
		t.Fatal(err)
	}
	want := `runs\_a \& b: goodput per run (sum of the run's flows), mean with t-based 95~\% CI, $n = 2$`
	if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "tab:goodput-paired") {
		t.Errorf("TeX lacks the caption %q, or has a paired table:\n%s", want, b.String())
	}
	groups, pairs, err := Figures(s, tab)
	if err != nil || groups == nil || pairs != nil {
		t.Errorf("Figures: %v, %v, %v; want the group figure only", groups != nil, pairs != nil, err)
	}
	if groupsN(&campaign.Tables{Groups: []stats.GroupRow{{Label: "a_b", N: 3}, {Label: "c", N: 4}}}) != `$n$: a\_b 3, c 4` {
		t.Error("groupsN with unequal n")
	}
}

// TestTables: rows a PEP acknowledged (pep) or may have (pep?) are left
// out and counted by kind; each run sums its flows: aodv runs 100+200 and
// 500 kbit/s give a mean of 400.
func TestTables(t *testing.T) {
	aodv := map[string]string{"protocol": "aodv"}
	rows := []campaign.FlowRow{
		{RunKey: "a1", Labels: aodv, Kbps: 100, Vantage: campaign.AtReceiver},
		{RunKey: "a1", Labels: aodv, Kbps: 200, Vantage: campaign.AtReceiver},
		{RunKey: "a2", Labels: aodv, Kbps: 500, Vantage: campaign.AtReceiver},
		{RunKey: "a3", Labels: aodv, Kbps: 9999, Vantage: campaign.AtProxy},
		{RunKey: "a3", Labels: aodv, Kbps: 8888, Vantage: campaign.AtProxyPossible},
		{RunKey: "a4", Labels: aodv, Kbps: 7777, Vantage: campaign.AtProxyPossible},
	}
	tab, runs, left, err := Tables(rows, Spec{Group: "protocol", PerRun: "sum", Level: 0.95}, campaign.AggregateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 || left != (LeftOut{PEP: 1, PEPRuns: 1, Possible: 2, PossibleRuns: 2}) || len(tab.Groups) != 1 || tab.Groups[0].Mean != 400 || tab.Groups[0].N != 2 {
		t.Errorf("runs %d, left out %+v, groups %+v", runs, left, tab.Groups)
	}
}
