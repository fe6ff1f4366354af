package study

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// Options are a goodput campaign's settings (Goodput): which captures and
// flows, over which interval, and the study's tables. Every value is
// checked (Validate) before any capture is read; an invalid one is a
// *campaign.OptionError naming the option (campaign.Option).
type Options struct {
	// Labels is a label pattern (campaign.ParsePattern), Manifest a CSV
	// of labels per capture (campaign.ReadManifest); at most one.
	Labels, Manifest string
	// Port keeps only flows with this port on either side; 0 keeps all.
	Port int
	// Dir chooses each connection's data direction (query.Auto: the one
	// that delivered more).
	Dir query.Dir
	// MinBytes drops flows that delivered fewer goodput bytes in all; -1
	// (auto) drops those under DefaultMinBytes in a closed connection.
	MinBytes int64
	// End, when > 0, ends every interval at this capture time, seconds.
	End float64
	// Jobs is the number of captures analysed at once; 0: all cores.
	Jobs int
	// Shard "i/n" (1-based) analyses only part i of n of the runs; "" all.
	Shard string
	// Starts is a CSV of application start times (campaign.ReadStarts);
	// StartsRename renames its columns, each "OLD=NEW".
	Starts       string
	StartsRename []string
	// Interval "START:END" (campaign.ParseInterval) is one window for
	// every flow; it excludes Starts and End.
	Interval string
	// NoGroundTruth ignores the testbed's ground truth next to the
	// captures (campaign.Options.Sidecars).
	NoGroundTruth bool
	// PathRTT, when > 0, is every flow's end-to-end path RTT
	// (campaign.Options.PathRTT): evidence for or against a split-TCP PEP
	// acknowledging each flow in its capture. Negative is an error.
	PathRTT time.Duration
	// Tables are the study's tables; without Tables.Group none.
	Tables TableOptions
	// Progress is called after each capture (nil: nothing).
	Progress func(done, total int)
	// ShowPath, when set, maps a capture path to the one the reader knows
	// it by, in rows and messages.
	ShowPath func(string) string
	// CheckInputs, when set, is called once the campaign's inputs are
	// known (the captures listed, the manifest, the starts file, the
	// ground truth next to the captures), before any capture is read;
	// an error stops the campaign (a front end refuses an output that
	// would replace an input).
	CheckInputs func([]Input) error
}

// InputKind says what a file is to a goodput campaign.
type InputKind uint8

// The kinds of input of a goodput campaign.
const (
	InputCapture     InputKind = iota + 1 // a capture listed (every path of it)
	InputManifest                         // Options.Manifest
	InputStarts                           // Options.Starts
	InputGroundTruth                      // ground truth next to the captures (campaign.SidecarFiles)
)

// String is what the kind is, in messages: "capture", "manifest",
// "starts file", "ground truth".
func (k InputKind) String() string {
	switch k {
	case InputCapture:
		return "capture"
	case InputManifest:
		return "manifest"
	case InputStarts:
		return "starts file"
	case InputGroundTruth:
		return "ground truth"
	}
	return fmt.Sprintf("InputKind(%d)", uint8(k))
}

// Input is a file a goodput campaign reads.
type Input struct {
	Path string
	Kind InputKind
}

// TableOptions are the study's tables (Tables) and paper outputs.
type TableOptions struct {
	Name   string  // the campaign, in titles and captions
	Group  string  // label runs are grouped by; "" for no tables
	Pair   string  // label pairing runs across groups; "" for none
	PerRun string  // "sum" or "mean" of a run's flows
	Level  float64 // confidence level, in (0, 1)
	// Order orders the groups and each comparison; Pairs, each
	// "FIRST:SECOND", picks the comparisons.
	Order, Pairs []string
	// Plot and TeX are the paths of the figure (.png, .svg, .pdf) and
	// LaTeX tables the caller writes; they need Group.
	Plot, TeX string
}

// DefaultMinBytes is what MinBytes −1 (auto) drops: flows that delivered
// less in all in a connection that was closed (a FIN or RST: iperf3's
// control connection, ≈ 0.5 KB), unless declared by ground truth or
// Starts; a flow that stalled or never delivered is kept
// (docs/metrics.md#interval).
const DefaultMinBytes = 1024

// ManetLabels is the label pattern of the ns-3 MANET testbed's captures,
// for messages.
const ManetLabels = "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap"

// ErrInput marks an error of the input (a capture, manifest, starts file
// or per-flow CSV that cannot be used), as opposed to an invalid option.
var ErrInput = errors.New("unusable input")

type inputError struct{ err error }

func (e inputError) Error() string   { return e.err.Error() }
func (e inputError) Unwrap() []error { return []error{ErrInput, e.err} }

// input wraps err with ErrInput, keeping its message.
func input(err error) error { return inputError{err} }

// Spec is what the tables hold, for captions and titles.
func (t TableOptions) Spec() Spec {
	return Spec{Name: t.Name, Group: t.Group, Pair: t.Pair, PerRun: t.PerRun, Level: t.Level}
}

// Aggregate is the order and comparisons Order and Pairs ask for.
func (t TableOptions) Aggregate() (campaign.AggregateOptions, error) {
	o := campaign.AggregateOptions{Order: t.Order}
	for _, p := range t.Pairs {
		a, b, ok := strings.Cut(p, ":")
		if !ok || a == "" || b == "" || a == b {
			return o, campaign.InvalidOption(campaign.OptPairs, "%s %q: want FIRST:SECOND with two different groups", campaign.OptPairs, p)
		}
		o.Pairs = append(o.Pairs, [2]string{a, b})
	}
	return o, nil
}

// validate checks the table options; repeats also refuses a group named
// twice in Order or a comparison twice in Pairs.
func (t TableOptions) validate(repeats bool) error {
	inv := campaign.InvalidOption
	switch {
	case t.PerRun != "sum" && t.PerRun != "mean":
		return inv(campaign.OptPerRun, "%s %q: want sum or mean", campaign.OptPerRun, t.PerRun)
	case !(t.Level > 0 && t.Level < 1):
		return inv(campaign.OptLevel, "%s %g: want a confidence level between 0 and 1, e.g. 0.95", campaign.OptLevel, t.Level)
	case t.Pair != "" && t.Group == "":
		return campaign.ConflictingOptions(campaign.OptPair, "%s %s needs %s", campaign.OptPair, t.Pair, campaign.OptGroup)
	case (t.Plot != "" || t.TeX != "" || len(t.Order) > 0 || len(t.Pairs) > 0) && t.Group == "":
		return campaign.ConflictingOptions(campaign.OptGroup, "%s, %s, %s and %s need %s", campaign.OptPlot, campaign.OptTeX, campaign.OptOrder, campaign.OptPairs, campaign.OptGroup)
	}
	if _, err := t.Aggregate(); err != nil {
		return err
	}
	if t.Plot != "" && plot.FormatOf(t.Plot) == "" {
		return inv(campaign.OptPlot, "%s %s: use .png, .svg or .pdf", campaign.OptPlot, t.Plot)
	}
	if !repeats {
		return nil
	}
	for _, l := range []struct {
		o     campaign.Option
		names []string
	}{{campaign.OptOrder, t.Order}, {campaign.OptPairs, t.Pairs}} {
		seen := map[string]bool{}
		for _, n := range l.names {
			if seen[n] {
				return inv(l.o, "%s names %s twice", l.o, n)
			}
			seen[n] = true
		}
	}
	return nil
}

// Validate checks every option that needs no file read, in the order
// the command line lists them; the first invalid one is a
// *campaign.OptionError.
func (o Options) Validate() error {
	inv := campaign.InvalidOption
	if o.Port < 0 || o.Port > 65535 {
		return inv(campaign.OptPort, "%s %d: want 1-65535", campaign.OptPort, o.Port)
	}
	if err := o.Tables.validate(true); err != nil {
		return err
	}
	if len(o.StartsRename) > 0 && o.Starts == "" {
		return campaign.ConflictingOptions(campaign.OptStartsRename, "%s renames columns of %s FILE: give %s too", campaign.OptStartsRename, campaign.OptStarts, campaign.OptStarts)
	}
	if _, err := o.renames(); err != nil {
		return err
	}
	if o.Jobs < 0 {
		return inv(campaign.OptJobs, "%s %d: want ≥ 0", campaign.OptJobs, o.Jobs)
	}
	_, err := o.campaignOptions()
	return err
}

// renames is StartsRename as a map.
func (o Options) renames() (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range o.StartsRename {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, campaign.InvalidOption(campaign.OptStartsRename, "%s %q: want OLD=NEW", campaign.OptStartsRename, kv)
		}
		m[k] = v
	}
	return m, nil
}

// campaignOptions checks the interval, small-flow and shard options and
// returns them as campaign.Options (without labels and starts).
func (o Options) campaignOptions() (campaign.Options, error) {
	co := campaign.Options{Port: o.Port, Dir: o.Dir, End: o.End, Jobs: o.Jobs, Progress: o.Progress, Sidecars: !o.NoGroundTruth, PathRTT: o.PathRTT}
	inv := campaign.InvalidOption
	if o.PathRTT < 0 {
		return co, inv(campaign.OptPathRTT, "%s %v: negative; want the path's end-to-end RTT, e.g. 600ms", campaign.OptPathRTT, o.PathRTT)
	}
	if o.Interval != "" {
		if o.Starts != "" || o.End > 0 {
			return co, campaign.ConflictingOptions(campaign.OptInterval, "%s gives every flow one window: drop %s and %s", campaign.OptInterval, campaign.OptStarts, campaign.OptEnd)
		}
		iv, err := campaign.ParseInterval(o.Interval)
		if err != nil {
			return co, &campaign.OptionError{Option: campaign.OptInterval, Err: campaign.ErrInvalidOption, Cause: err, Text: campaign.Textf("%s: %v", campaign.OptInterval, err)}
		}
		co.Interval = &iv
	}
	if o.End < 0 {
		return co, inv(campaign.OptEnd, "%s %g: negative; capture times are seconds since the epoch (simulation seconds for ns-3)", campaign.OptEnd, o.End)
	}
	switch {
	case o.MinBytes == -1:
		co.MinBytes, co.MinBytesClosed = DefaultMinBytes, true
	case o.MinBytes < 0:
		return co, inv(campaign.OptMinBytes, "%s %d: want a byte count, or -1 for auto", campaign.OptMinBytes, o.MinBytes)
	default:
		co.MinBytes = o.MinBytes
	}
	if o.Shard != "" {
		var i, n int
		if _, err := fmt.Sscanf(o.Shard, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n {
			return co, inv(campaign.OptShard, "%s %q: want i/n with 1 ≤ i ≤ n", campaign.OptShard, o.Shard)
		}
		co.Shard, co.Shards = i-1, n
	}
	if o.Labels != "" && o.Manifest != "" {
		return co, campaign.ConflictingOptions(campaign.OptLabels, "choose one of %s and %s", campaign.OptLabels, campaign.OptManifest)
	}
	return co, nil
}

// checkGroupIn checks Group and Pair against names, the labels the runs
// have, which src (format and args, as Textf) names: a typo, or a group
// without labels, is found before the campaign is analysed (trial13 B3).
func (t TableOptions) checkGroupIn(names []string, src string, srcArgs ...any) error {
	if t.Group == "" {
		return nil
	}
	if t.Pair == t.Group {
		return campaign.InvalidOption(campaign.OptPair, "%s %s: the pairing label must differ from %s", campaign.OptPair, t.Pair, campaign.OptGroup)
	}
	for _, l := range []struct {
		o     campaign.Option
		value string
	}{{campaign.OptGroup, t.Group}, {campaign.OptPair, t.Pair}} {
		if l.value == "" || slices.Contains(names, l.value) {
			continue
		}
		if len(names) == 0 {
			return campaign.UnknownLabel(l.o, "%s %s: the runs have no labels; name them with %s PATTERN (e.g. '%s') or %s FILE",
				l.o, l.value, campaign.OptLabels, ManetLabels, campaign.OptManifest)
		}
		args := append(append([]any{l.o, l.value}, srcArgs...), strings.Join(names, ", "))
		return campaign.UnknownLabel(l.o, "%s %s: not a label of "+src+" (its labels: %s)", args...)
	}
	return nil
}

// checkGroupsOfFiles checks the groups Order and Pairs name against the
// Group values that the capture names give through labels: a name no
// capture has is a typo (trial14 B5). Files labels does not match are
// left to the batch; with Starts, flows it declares may add groups, so
// nothing is checked then.
func (o Options) checkGroupsOfFiles(files []string, labels func(string) (map[string]string, bool)) error {
	t := o.Tables
	if t.Group == "" || labels == nil || o.Starts != "" || (len(t.Order) == 0 && len(t.Pairs) == 0) {
		return nil
	}
	var groups []string
	for _, p := range files {
		if l, ok := labels(p); ok {
			if g, ok := l[t.Group]; ok && !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	if len(groups) == 0 {
		return nil
	}
	slices.Sort(groups)
	check := func(opt campaign.Option, what, name string) error {
		if !slices.Contains(groups, name) {
			return campaign.UnknownLabel(opt, "%s%s names %s=%s, but no capture's name gives it (groups: %s)", opt, what, t.Group, name, strings.Join(groups, ", "))
		}
		return nil
	}
	for _, g := range t.Order {
		if err := check(campaign.OptOrder, "", g); err != nil {
			return err
		}
	}
	for _, p := range t.Pairs {
		a, b, _ := strings.Cut(p, ":")
		for _, g := range []string{a, b} {
			if err := check(campaign.OptPairs, " "+p, g); err != nil {
				return err
			}
		}
	}
	return nil
}
