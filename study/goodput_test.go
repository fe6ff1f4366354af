package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// valid are options that pass Validate: the MANET study's.
func valid() Options {
	return Options{Labels: ManetLabels, MinBytes: -1, End: 100,
		Tables: TableOptions{Group: "protocol", Pair: "seed", PerRun: "sum", Level: 0.95}}
}

// TestValidate: each invalid option is an *campaign.OptionError naming
// that option, wrapping its sentinel, with a message that names options
// as the library does (no command-line flag), before any file is read.
func TestValidate(t *testing.T) {
	if err := valid().Validate(); err != nil {
		t.Fatalf("the study's options: %v", err)
	}
	for _, tc := range []struct {
		set      func(*Options)
		opt      campaign.Option
		sentinel error
		msg      string
	}{
		{func(o *Options) { o.Port = 70000 }, campaign.OptPort, campaign.ErrInvalidOption, "Port 70000: want 1-65535"},
		{func(o *Options) { o.Tables.PerRun = "max" }, campaign.OptPerRun, campaign.ErrInvalidOption, `PerRun "max": want sum or mean`},
		{func(o *Options) { o.Tables.Level = 95 }, campaign.OptLevel, campaign.ErrInvalidOption, "Level 95: want a confidence level between 0 and 1, e.g. 0.95"},
		{func(o *Options) { o.Tables.Group = "" }, campaign.OptPair, campaign.ErrOptionsConflict, "Pair seed needs Group"},
		{func(o *Options) { o.Tables.Group, o.Tables.Pair, o.Tables.Order = "", "", []string{"aodv"} }, campaign.OptGroup, campaign.ErrOptionsConflict, "Plot, TeX, Order and Pairs need Group"},
		{func(o *Options) { o.Tables.Pairs = []string{"aodv"} }, campaign.OptPairs, campaign.ErrInvalidOption, `Pairs "aodv": want FIRST:SECOND with two different groups`},
		{func(o *Options) { o.Tables.Plot = "g.gif" }, campaign.OptPlot, campaign.ErrInvalidOption, "Plot g.gif: use .png, .svg or .pdf"},
		{func(o *Options) { o.Tables.Order = []string{"olsr", "aodv", "olsr"} }, campaign.OptOrder, campaign.ErrInvalidOption, "Order names olsr twice"},
		{func(o *Options) { o.StartsRename = []string{"run=seed"} }, campaign.OptStartsRename, campaign.ErrOptionsConflict, "StartsRename renames columns of Starts FILE: give Starts too"},
		{func(o *Options) { o.Starts, o.StartsRename = "gt.csv", []string{"run"} }, campaign.OptStartsRename, campaign.ErrInvalidOption, `StartsRename "run": want OLD=NEW`},
		{func(o *Options) { o.Jobs = -1 }, campaign.OptJobs, campaign.ErrInvalidOption, "Jobs -1: want ≥ 0"},
		{func(o *Options) { o.Interval = "10:100" }, campaign.OptInterval, campaign.ErrOptionsConflict, "Interval gives every flow one window: drop Starts and End"},
		{func(o *Options) { o.End, o.Interval = 0, "100:10" }, campaign.OptInterval, campaign.ErrInvalidOption, `Interval: interval "100:10": END must be after START`},
		{func(o *Options) { o.End = -1 }, campaign.OptEnd, campaign.ErrInvalidOption, "End -1: negative; capture times are seconds since the epoch (simulation seconds for ns-3)"},
		{func(o *Options) { o.MinBytes = -2 }, campaign.OptMinBytes, campaign.ErrInvalidOption, "MinBytes -2: want a byte count, or -1 for auto"},
		{func(o *Options) { o.Shard = "4/3" }, campaign.OptShard, campaign.ErrInvalidOption, `Shard "4/3": want i/n with 1 ≤ i ≤ n`},
		{func(o *Options) { o.Manifest = "runs.csv" }, campaign.OptLabels, campaign.ErrOptionsConflict, "choose one of Labels and Manifest"},
	} {
		o := valid()
		tc.set(&o)
		err := o.Validate()
		var oe *campaign.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.opt || !errors.Is(err, tc.sentinel) || err.Error() != tc.msg {
			t.Errorf("%v: want an OptionError on %v wrapping %v: %q", err, tc.opt, tc.sentinel, tc.msg)
			continue
		}
		flag := oe.Message(func(o campaign.Option) string { return "--" + strings.ToLower(o.String()) })
		if want := "--" + strings.ToLower(tc.opt.String()); !strings.Contains(flag, want) {
			t.Errorf("%q rendered with flag names: %q lacks %s", tc.msg, flag, want)
		}
	}
}

// TestGoodputNS3 runs the README's MANET study on ../shared/ns3 through
// the one library call: 72 captures, 24 flows, the README's group means
// (kbit/s, one decimal), a note and the summary line, and nothing else.
func TestGoodputNS3(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	out, err := Goodput(context.Background(), []string{ns3}, valid())
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Result.Files) != 72 || len(out.Rows) != 24 || out.Runs != 6 || len(out.LabelNames) != 5 {
		t.Fatalf("%d captures, %d rows, %d runs, labels %v; want 72, 24, 6, 5", len(out.Result.Files), len(out.Rows), out.Runs, out.LabelNames)
	}
	want := map[string]float64{"aodv": 1099.1, "dsdv": 1326.4, "olsr": 1287.5}
	for _, g := range out.Tables.Groups {
		if math.Round(g.Mean*10)/10 != want[g.Label] || g.N != 2 {
			t.Errorf("group %s: n %d, mean %.1f kbit/s; want 2, %.1f", g.Label, g.N, g.Mean, want[g.Label])
		}
	}
	if len(out.Warnings) != 2 || out.Warnings[0].Kind != campaign.WarnNoReceiver || out.Warnings[1].Kind != campaign.WarnSummary ||
		!strings.HasPrefix(out.Warnings[0].String(), "note: 1 flow reached no receiver") ||
		!strings.Contains(out.Warnings[1].String(), "goodput: 72 captures, 72 used, 0 failed; 24 flows (") {
		t.Errorf("warnings %v; want the no-receiver note and the summary", out.Warnings)
	}
	if len(out.Notes) != 0 || len(out.TableWarnings) != 0 {
		t.Errorf("notes %v, table warnings %v; want none", out.Notes, out.TableWarnings)
	}

	// The rows as CSV, given twice to Stats: counted once, with a warning,
	// and the same tables.
	csvPath := filepath.Join(t.TempDir(), "flows.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := export.WriteGoodputCSV(f, out.Rows, out.LabelNames); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err := Stats([]string{csvPath, csvPath}, valid().Tables)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Rows) != 24 || len(st.Warnings) != 2 || st.Warnings[0].String() != "stats: 24 flows from 2 files" || st.Warnings[1].Kind != campaign.WarnRepeated {
		t.Errorf("stats: %d rows, warnings %v", len(st.Rows), st.Warnings)
	}
	for i, g := range st.Tables.Groups {
		if fmt.Sprintf("%.1f", g.Mean) != fmt.Sprintf("%.1f", out.Tables.Groups[i].Mean) {
			t.Errorf("stats group %s: %.1f kbit/s, goodput %.1f", g.Label, g.Mean, out.Tables.Groups[i].Mean)
		}
	}
	if _, err := Stats([]string{csvPath}, TableOptions{Group: "routing", PerRun: "sum", Level: 0.95}); !errors.Is(err, campaign.ErrUnknownLabel) ||
		!strings.HasPrefix(err.Error(), "Group routing: not a label of "+csvPath+" (its labels: dev, node, protocol, seed, transport)") {
		t.Errorf("stats --group routing: %v", err)
	}
}

// TestGoodputInputErrors: what cannot be used is ErrInput; a group label
// the pattern does not have is found before any capture is read.
func TestGoodputInputErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Goodput(context.Background(), []string{dir}, valid()); !errors.Is(err, ErrInput) || err.Error() != "no capture found under "+dir {
		t.Errorf("empty directory: %v", err)
	}
	o := valid()
	o.Manifest, o.Labels = filepath.Join(dir, "missing.csv"), ""
	if _, err := Goodput(context.Background(), []string{dir}, o); !errors.Is(err, ErrInput) {
		t.Errorf("missing manifest: %v", err)
	}
	o = valid()
	o.Tables.Group = "routing"
	_, err := Goodput(context.Background(), []string{dir}, o)
	if !errors.Is(err, campaign.ErrUnknownLabel) || errors.Is(err, ErrInput) ||
		err.Error() != "Group routing: not a label of Labels "+ManetLabels+" (its labels: transport, protocol, seed, node, dev)" {
		t.Errorf("unknown group: %v", err)
	}
}
