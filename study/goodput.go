package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/internal/textcol"
	"github.com/tcpviz/tcpviz/query"
)

// count is textcol.Count: "1 file", "3 files".
var count = textcol.Count

// Outcome is what Goodput or Stats found: the rows, the lines to report
// besides them, and the study's tables.
type Outcome struct {
	// Result is the campaign's analysis (Goodput only): Rows, Files,
	// Failed (with the paths that could not be listed), the reader's
	// Warnings per capture.
	Result     *campaign.Result
	Rows       []campaign.FlowRow
	LabelNames []string // label columns of the rows, in order
	// Warnings are the lines to report before the rows, in order; when
	// Goodput or Stats fails, those found until then.
	Warnings []campaign.Warning
	// Tables, with Runs runs, are the study's tables (Options.Tables.Group
	// set); nil otherwise.
	Tables *campaign.Tables
	Runs   int
	Spec   Spec
	// TableWarnings are the lines to report just before the tables (rows
	// a PEP acknowledged, left out of them).
	TableWarnings []campaign.Warning
	// Notes are the lines under the tables: the late flows' summary and
	// TableWarnings.
	Notes []campaign.Warning
}

func (out *Outcome) add(s campaign.Severity, k campaign.WarningKind, format string, args ...any) campaign.Warning {
	w := campaign.Warn(s, k, format, args...)
	out.Warnings = append(out.Warnings, w)
	return w
}

// Goodput analyses the captures under paths (campaign.List) as o asks
// (campaign.Goodput) and reports what a reader must know about the rows:
// failed and rejected captures, reader warnings, intervals outside the
// captures, flows not read at their receiver, labels that do not fit,
// flows left out, the summary, late flows, PEP-acknowledged rows. With
// o.Tables.Group it computes the study's tables (Tables), so that a
// mistake only the rows can show (an Order group no run has) stops it
// before anything is written. Errors: a *campaign.OptionError for an
// invalid option (also a starts file whose column naming runs is no label:
// campaign.ReadStarts, campaign.Goodput); ErrInput (wrapped) for input
// that cannot be used (a manifest or starts file, no capture found, every
// capture failed, one run's captures with different group labels, two
// paths of one capture with different labels, two runs of a group with one
// pairing key);
// campaign.ErrOutsideCaptures; ctx's error. The Outcome is never nil.
func Goodput(ctx context.Context, paths []string, o Options) (*Outcome, error) {
	out := &Outcome{Spec: o.Tables.Spec()}
	if err := o.Validate(); err != nil {
		return out, err
	}
	co, _ := o.campaignOptions()
	source := []any{campaign.OptLabels, o.Labels}
	switch {
	case o.Labels != "":
		p, err := campaign.ParsePattern(o.Labels)
		if err != nil {
			return out, &campaign.OptionError{Option: campaign.OptLabels, Err: campaign.ErrInvalidOption, Cause: err, Text: campaign.Textf("%s: %v", campaign.OptLabels, err)}
		}
		co.Labels, out.LabelNames = p.Match, p.Names()
	case o.Manifest != "":
		m, err := campaign.ReadManifest(o.Manifest)
		if err != nil {
			return out, input(err)
		}
		co.Labels, out.LabelNames = m.Labels, m.Names
		source = []any{campaign.OptManifest, o.Manifest}
	}
	if err := o.Tables.checkGroupIn(out.LabelNames, "%s %s", source...); err != nil {
		return out, err
	}
	if o.Starts != "" {
		rename, _ := o.renames()
		st, err := campaign.ReadStarts(o.Starts, rename, out.LabelNames)
		var oe *campaign.OptionError
		if errors.As(err, &oe) {
			return out, err // a column that should be a label: --starts-rename
		}
		if err != nil {
			return out, input(err)
		}
		co.Starts = st
	}
	listing, err := campaign.ListWith(paths, campaign.ListOptions{Labels: co.Labels})
	if err != nil {
		return out, input(err)
	}
	for _, n := range listing.Notes {
		out.add(campaign.Note, campaign.WarnListing, "%s", n)
	}
	show := func(p string) string {
		if o.ShowPath != nil {
			return o.ShowPath(p)
		}
		return p
	}
	out.sameNotes(listing.Same, show)
	out.sameLabelCaptures(listing.Files, co.Labels, show)
	if o.CheckInputs != nil {
		if err := o.CheckInputs(o.inputs(listing)); err != nil {
			return out, err
		}
	}
	if len(listing.Files) == 0 && len(listing.Failed) == 0 {
		return out, input(fmt.Errorf("no capture found under %s", strings.Join(paths, " ")))
	}
	if err := o.checkGroupsOfFiles(listing.Files, co.Labels); err != nil {
		return out, err
	}
	res, err := campaign.Goodput(ctx, listing.Files, co)
	if err != nil {
		return out, err
	}
	out.Result, out.Rows = res, res.Rows
	if o.ShowPath != nil {
		for i := range res.Rows {
			res.Rows[i].File, res.Rows[i].RunKey = o.ShowPath(res.Rows[i].File), o.ShowPath(res.Rows[i].RunKey)
		}
		for i := range res.Warnings {
			res.Warnings[i].File = o.ShowPath(res.Warnings[i].File)
		}
	}
	// Paths that could not be listed count as failed captures.
	for _, f := range listing.Failed {
		res.Files = append(res.Files, f.File)
	}
	res.Failed = append(listing.Failed, res.Failed...)
	if err := out.failures(o.Labels); err != nil {
		return out, err
	}
	out.captureWarnings()
	if err := out.checkLabels(o); err != nil {
		return out, err
	}
	out.dropped(o.MinBytes)
	out.noFlows(o.Port)
	dirNote := map[query.Dir]string{query.Auto: "the direction that delivered more bytes", query.AB: "from the SYN sender", query.BA: "towards the SYN sender"}[o.Dir]
	iv := o.intervalNote(res)
	out.add(campaign.Info, campaign.WarnSummary, "goodput: %s, %d used, %d failed; %s (%s; rate over "+iv.Format+"; each flow counted once, from its receiver's capture where possible)",
		append([]any{count(len(res.Files), "capture"), len(res.Files) - len(res.Failed), len(res.Failed), count(len(res.Rows), "flow"), dirNote}, iv.Args...)...)
	out.intervals(o, o.Tables.Group != "")
	if o.Tables.Group == "" {
		return out, nil
	}
	return out, out.tables(o.Tables, false)
}

// inputs are the files the campaign reads: every path of the captures
// listed, the manifest, the starts file, and the ground truth next to the
// captures when it is read (no Interval or Starts, NoGroundTruth unset).
func (o Options) inputs(l *campaign.Listing) []Input {
	var in []Input
	for _, f := range l.Files {
		in = append(in, Input{f, InputCapture})
	}
	for _, s := range l.Same {
		in = append(in, Input{s.Path, InputCapture})
	}
	if o.Manifest != "" {
		in = append(in, Input{o.Manifest, InputManifest})
	}
	if o.Starts != "" {
		in = append(in, Input{o.Starts, InputStarts})
	}
	if o.Interval == "" && o.Starts == "" && !o.NoGroundTruth {
		seen := map[string]bool{}
		var runs []string
		for _, k := range campaign.RunKeys(l.Files) {
			if !seen[k] {
				seen[k] = true
				runs = append(runs, k)
			}
		}
		sort.Strings(runs)
		for _, k := range runs {
			for _, f := range campaign.SidecarFiles(k) {
				if !seen[f] {
					seen[f] = true
					in = append(in, Input{f, InputGroundTruth})
				}
			}
		}
	}
	return in
}

// sameNotesNamed is how many of the paths left out as a capture already
// listed a note names; the rest are counted.
const sameNotesNamed = 3

// sameNotes says which paths were left out because they hold a capture
// already listed (campaign.Listing.Same), naming both paths of the first
// few, then how many in all; show maps a path to the one the reader knows.
func (out *Outcome) sameNotes(same []campaign.SamePath, show func(string) string) {
	if len(same) == 0 {
		return
	}
	files, copies := 0, 0
	for i, s := range same {
		if s.How == campaign.SameFile {
			files++
		} else {
			copies++
		}
		if i < sameNotesNamed {
			out.add(campaign.Note, campaign.WarnSameCapture, "%s: one capture, analysed once", campaign.SamePath{Kept: show(s.Kept), Path: show(s.Path), How: s.How})
		}
	}
	var how []string
	if files > 0 {
		how = append(how, fmt.Sprintf("%d the same file by another path: a relative and an absolute path, a symlink, a folder given twice", files))
	}
	if copies > 0 {
		how = append(how, fmt.Sprintf("%d byte-identical copies at another inode", copies))
	}
	out.add(campaign.Note, campaign.WarnSameCapture, "%s left out as captures already listed (%s): each capture is analysed once, in one run",
		count(len(same), "path"), strings.Join(how, "; "))
}

// sameLabelCaptures warns, loudly, when two captures of files (distinct
// files: campaign.ListWith merged paths of one capture) get the same
// labels, node and device included: the labels do not tell them apart,
// so two runs of them would be one group's two runs with one seed.
func (out *Outcome) sameLabelCaptures(files []string, labels func(string) (map[string]string, bool), show func(string) string) {
	if labels == nil {
		return
	}
	byID := map[string][]string{}
	var ids []string
	for _, f := range files {
		l, ok := labels(f)
		if !ok || len(l) == 0 {
			continue
		}
		var parts []string
		for n, v := range l {
			parts = append(parts, n+"="+v)
		}
		sort.Strings(parts)
		id := strings.Join(parts, " ")
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], f)
	}
	n := 0
	var first string
	for _, id := range ids {
		if fs := byID[id]; len(fs) > 1 {
			n += len(fs)
			if first == "" {
				first = fmt.Sprintf("%s and %s (%s)", show(fs[0]), show(fs[1]), id)
			}
		}
	}
	if n > 0 {
		out.add(campaign.Loud, campaign.WarnSameLabels, "%d captures get the same labels as another capture, e.g. %s: the labels do not tell them apart (a pattern without the label that names the run, such as its seed, or one capture in two forms such as .pcap and .pcap.gz); captures of two runs with the same labels are two runs of one group with one pairing key", n, first)
	}
}

// tables computes the study's tables from out.Rows, with the warning on
// rows a PEP acknowledged; warnOnError reports that warning even when
// the tables cannot be made. Runs that no label tells apart are warned
// about, loudly, before the tables and under them; with a pairing label
// they are an error (campaign.ErrDuplicateRuns, wrapped with ErrInput).
func (out *Outcome) tables(t TableOptions, warnOnError bool) error {
	ao, err := t.Aggregate()
	if err != nil {
		return err
	}
	var same []campaign.Warning
	if t.Pair == "" {
		for _, s := range campaign.SameLabelRuns(out.Rows) {
			same = append(same, campaign.Warn(campaign.Loud, campaign.WarnSameLabels, "%s have the same labels (%s): no label tells them apart, so each counts as a run of its own in its group's n and CI: the same captures given twice (two paths, copies, or two per-flow CSVs of one campaign), or labels without the one that tells runs apart",
				strings.Join(s.Runs, ", "), s.Labels))
		}
	}
	tab, runs, left, err := Tables(out.Rows, out.Spec, ao)
	if err != nil {
		if warnOnError {
			out.Warnings = append(out.Warnings, pepWarnings(left)...)
		}
		if errors.Is(err, campaign.ErrDuplicateRuns) {
			return input(err)
		}
		return err
	}
	out.Tables, out.Runs = tab, runs
	out.TableWarnings = append(out.TableWarnings, same...)
	out.Notes = append(out.Notes, same...)
	for _, w := range pepWarnings(left) {
		out.TableWarnings = append(out.TableWarnings, w)
		out.Notes = append(out.Notes, w)
	}
	return nil
}

// pepWarnings say, loudly, how many rows in how many runs (vantage pep,
// vantage pep?) are left out of the Goodput tables (Tables), why, and how
// to get their end-to-end goodput.
func pepWarnings(left LeftOut) []campaign.Warning {
	var ws []campaign.Warning
	isAre := func(n int) string { return map[bool]string{true: "is", false: "are"}[n == 1] }
	if left.PEP > 0 {
		ws = append(ws, campaign.Warn(campaign.Loud, campaign.WarnPEPTables, "%s in %s (vantage pep) %s LEFT OUT of the Goodput tables: a split-TCP PEP likely acknowledged their data (one capture's evidence), so their bytes were accepted by the PEP, not delivered end to end. Their end-to-end goodput needs the server-side capture: tcpviz compare LABEL=CLIENT+SERVER (docs/metrics.md#pep)",
			count(left.PEP, "flow"), count(left.PEPRuns, "run"), isAre(left.PEP)))
	}
	if left.Possible > 0 {
		ws = append(ws, campaign.Warn(campaign.Loud, campaign.WarnPEPTables, "%s in %s (vantage pep?) %s LEFT OUT of the Goodput tables: their capture cannot tell whether the receiver or a split-TCP PEP on the sender's link acknowledged their data, so whether their bytes were delivered end to end is unknown. %s (the path's end-to-end RTT) decides it for every flow (a connection RTT of at least a quarter of it keeps the row); the server-side captures give the end-to-end goodput: tcpviz compare LABEL=CLIENT+SERVER (docs/metrics.md#pep)",
			count(left.Possible, "flow"), count(left.PossibleRuns, "run"), isAre(left.Possible), campaign.OptPathRTT))
	}
	return ws
}

// failures reports the captures that failed, saying which the label
// pattern rejected (not "absent flows"), and returns an ErrInput error
// when every capture failed.
func (out *Outcome) failures(labels string) error {
	res := out.Result
	rejected, first := 0, ""
	for _, fe := range res.Failed {
		if errors.Is(fe.Err, campaign.ErrNoLabels) {
			if rejected == 0 {
				first = fe.File
			}
			rejected++
			continue
		}
		if msg := fe.Err.Error(); strings.HasPrefix(msg, fe.File+": ") {
			out.add(campaign.Failure, campaign.WarnCaptureFailed, "%s", msg) // it names the file already
		} else {
			out.add(campaign.Failure, campaign.WarnCaptureFailed, "%s: %s", fe.File, msg)
		}
	}
	if rejected > 0 {
		what, args := "the manifest", []any{}
		if labels != "" {
			what, args = "%s %s", []any{campaign.OptLabels, labels}
		}
		out.add(campaign.Failure, campaign.WarnRejected, "%d of %d captures rejected: their paths do not match "+what+" (e.g. %s); they were not analysed",
			append(append([]any{rejected, len(res.Files)}, args...), first)...)
	}
	if len(res.Files) > 0 && len(res.Failed) == len(res.Files) {
		if rejected == len(res.Files) {
			return input(errors.New("every capture was rejected by the label pattern: nothing analysed"))
		}
		return input(errors.New("every capture failed: nothing analysed"))
	}
	return nil
}

// captureWarnings reports the reader's warnings per capture (a capture
// cut mid-record is used up to the cut: its rows have capture_warnings >
// 0), intervals outside the captures and flows not read at their
// receiver.
func (out *Outcome) captureWarnings() {
	res := out.Result
	for _, fw := range res.Warnings {
		for _, m := range fw.Warnings {
			if !strings.HasPrefix(m, fw.File) {
				m = fw.File + ": " + m
			}
			out.add(campaign.Caution, campaign.WarnCaptureCut, "%s (its flows are used up to there; column capture_warnings)", m)
		}
	}
	out.Warnings = append(append(append(out.Warnings, res.IntervalWarnings...), res.VantageWarnings...), res.VantageNotes...)
}

// checkLabels refuses a run whose captures disagree on the group or pair
// label (ErrInput), and warns when a placeholder swallowed a separator of
// the pattern (the pattern probably does not fit the file names).
func (out *Outcome) checkLabels(o Options) error {
	var names []string
	for _, n := range []string{o.Tables.Group, o.Tables.Pair} {
		if n != "" {
			names = append(names, n)
		}
	}
	if c := campaign.LabelConflicts(out.Rows, names); len(c) > 0 {
		more := ""
		if len(c) > 3 {
			more = fmt.Sprintf(" (and %d more)", len(c)-3)
			c = c[:3]
		}
		return input(campaign.UnknownLabel(campaign.OptGroup, "the captures of one run have different %s/%s labels, so a run would count in several groups: %s%s; fix %s (e.g. '%s' for ns-3)",
			campaign.OptGroup, campaign.OptPair, strings.Join(c, "; "), more, campaign.OptLabels, ManetLabels))
	}
	if o.Labels == "" {
		return nil
	}
	p, err := campaign.ParsePattern(o.Labels)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var bad []string
	for _, r := range out.Rows {
		if r.File == "" || seen[r.File] {
			continue
		}
		seen[r.File] = true
		if s := p.Swallowed(r.Labels); len(s) > 0 {
			bad = append(bad, fmt.Sprintf("%s → %s", r.File, strings.Join(s, " ")))
		}
	}
	if len(bad) > 0 {
		out.add(campaign.Loud, campaign.WarnLabelsFit, "%s %s probably does not fit the file names: in %d captures a label holds the separator the pattern puts next to it, e.g. %s; check the label columns before trusting any group",
			campaign.OptLabels, o.Labels, len(bad), bad[0])
	}
	return nil
}

// noFlows says why a batch whose captures were analysed has no flow:
// none of them holds a TCP connection (with the counts of what they hold),
// or none of their connections has port (the Port option).
func (out *Outcome) noFlows(port int) {
	res := out.Result
	used := len(res.Files) - len(res.Failed)
	if len(res.Rows) > 0 || used == 0 {
		return
	}
	switch {
	case len(res.NoTCP) == used:
		var c campaign.CaptureCounts
		for _, n := range res.NoTCP {
			c.Frames, c.NonTCP, c.NonIP = c.Frames+n.Frames, c.NonTCP+n.NonTCP, c.NonIP+n.NonIP
		}
		what := "none of the " + count(used, "capture") + " holds a"
		if used == 1 {
			what = "the capture holds no"
		}
		out.add(campaign.Caution, campaign.WarnNoTCP, "%s TCP connection (%s read: %s that are not TCP, such as UDP or ICMP, %s without IP): goodput measures TCP flows only, so there is no flow (a UDP control run, or a capture filter that kept no TCP?)",
			what, count64(c.Frames, "frame"), count64(c.NonTCP, "IP packet"), count64(c.NonIP, "frame"))
	case port != 0 && res.Conns > 0:
		out.add(campaign.Caution, campaign.WarnNoTCP, "no flow: the %s hold %s (counted per capture), none with port %d (%s)", count(used, "capture"), count(res.Conns, "TCP connection"), port, campaign.OptPort)
	}
}

// count64 is count for an int64.
func count64(n int64, what string) string { return count(int(n), what) }

// dropped says which flows the small-flow filter left out.
func (out *Outcome) dropped(minBytes int64) {
	var d, unknown []campaign.FlowRow
	for _, r := range out.Result.Dropped {
		if r.UnackedPayload() > 0 {
			unknown = append(unknown, r)
		} else {
			d = append(d, r)
		}
	}
	if len(unknown) > 0 {
		ex := unknown[0]
		out.add(campaign.Caution, campaign.WarnDropped, "%s sent payload that no captured packet acknowledges: their captures hold no packet from the receiver (one direction captured), so the bytes delivered are unknown, not 0, and they are left out (e.g. %s:%d → %s:%d, %d payload bytes sent); analyse a capture where the receiver's ACKs pass, or both directions",
			count(len(unknown), "flow"), ex.Src, ex.SPort, ex.Dst, ex.DPort, ex.UnackedPayload())
	}
	if len(d) == 0 {
		return
	}
	ex := d[0]
	rule := campaign.Textf("delivered fewer than %s %d bytes in all", campaign.OptMinBytes, minBytes)
	if minBytes == -1 {
		rule = campaign.Textf("delivered fewer than %d bytes in all in a connection that was closed (%s auto)", DefaultMinBytes, campaign.OptMinBytes)
	}
	args := append(append([]any{count(len(d), "flow")}, rule.Args...), map[bool]string{true: "is", false: "are"}[len(d) == 1],
		ex.Src, ex.SPort, ex.Dst, ex.DPort, ex.TotalBytes, campaign.OptStarts, campaign.OptMinBytes)
	out.add(campaign.Note, campaign.WarnDropped, "%s "+rule.Format+" and %s left out (e.g. %s:%d → %s:%d, %d bytes: a control connection such as iperf3's); flows the ground truth or %s declares are always kept; %s 0 keeps every flow", args...)
}

// intervalNote says over which interval the rates were taken.
func (o Options) intervalNote(res *campaign.Result) campaign.Text {
	if o.Interval != "" {
		return campaign.Textf("[%s] s for every flow (%s)", o.Interval, campaign.OptInterval)
	}
	n := map[campaign.IntervalSource]int{}
	for _, r := range res.Rows {
		n[r.Source]++
	}
	end := "its receiver's close, else the run's last frame"
	if o.End > 0 {
		end = fmt.Sprintf("t = %g s", o.End)
	}
	switch {
	case n[campaign.FromStarts] > 0:
		return campaign.Textf("the application start from %s %s to %s", o.Starts, someOf(n[campaign.FromStarts], len(res.Rows), "their first data"), end)
	case n[campaign.FromSidecar] > 0:
		if o.End <= 0 {
			end = "its stop there (else its receiver's close, else the run's last frame)"
		}
		return campaign.Textf("the application start from the testbed's ground truth next to the captures, %s %s to %s", count(len(res.Sidecars), "file"), someOf(n[campaign.FromSidecar], len(res.Rows), "their first data"), end)
	}
	return campaign.Textf("the receiving application's interval: first data to %s (as compare's end-to-end goodput)", end)
}

// intervals reports unreadable ground truth, PEP-acknowledged flows,
// declared flows no capture holds and, per run, the flows that started
// late while no application start was known, with a summary and the fix;
// withTables also puts the summary under the tables.
func (out *Outcome) intervals(o Options, withTables bool) {
	res := out.Result
	for _, se := range res.SidecarErrors {
		out.add(campaign.Caution, campaign.WarnGroundTruth, "ground truth of run %s unreadable, its flows start at their first packet: %v", se.File, se.Err)
	}
	absent, proxied, maybe := 0, 0, 0
	absentIn := map[string]int{} // declared flows in no capture, per run
	var absentRuns []string
	for _, r := range res.Rows {
		switch r.Vantage {
		case campaign.Nowhere:
			absent++
			if absentIn[r.RunKey] == 0 {
				absentRuns = append(absentRuns, r.RunKey)
			}
			absentIn[r.RunKey]++
		case campaign.AtProxy:
			proxied++
		case campaign.AtProxyPossible:
			maybe++
		}
	}
	if proxied > 0 {
		out.add(campaign.Caution, campaign.WarnPEP, "%s %s likely acknowledged by a split-TCP PEP in their capture (vantage pep: one capture's evidence, package pep: a connection RTT below a quarter of %s, or two signs of one on-link host, which an on-link receiver whose application stops reading can also show): their bytes were accepted by the PEP, not delivered end to end; analyse the captures behind the PEP (docs/metrics.md#pep)", count(proxied, "flow"), map[bool]string{true: "was", false: "were"}[proxied == 1], campaign.OptPathRTT)
	}
	if maybe > 0 {
		out.add(campaign.Caution, campaign.WarnPEP, "%s may have been acknowledged by a split-TCP PEP in their capture (vantage pep?: the acknowledger is on the sender's link, and one capture cannot tell an on-link receiver from a PEP there, package pep): their goodput_kbps is end-to-end only if the receiver acknowledged. Give %s (the path's end-to-end RTT) to decide, or analyse the captures behind the acknowledger (docs/metrics.md#pep)", count(maybe, "flow"), campaign.OptPathRTT)
	}
	if absent > 0 {
		const named = 5 // runs named; the rest are counted
		var each []string
		for i, k := range absentRuns {
			if i == named {
				each = append(each, fmt.Sprintf("%d more %s", len(absentRuns)-named, map[bool]string{true: "run", false: "runs"}[len(absentRuns)-named == 1]))
				break
			}
			each = append(each, fmt.Sprintf("%s %d", filepath.Base(k), absentIn[k]))
		}
		from := campaign.Textf("the testbed's ground truth")
		if o.Starts != "" {
			from = campaign.Textf("%s %s", campaign.OptStarts, o.Starts)
		}
		args := append(append([]any{count(absent, "flow")}, from.Args...), count(len(absentRuns), "run"), strings.Join(each, ", "))
		w := out.add(campaign.Caution, campaign.WarnDeclared, "%s declared by "+from.Format+" but found in no capture of their run (%s: %s): rows with 0 bytes and vantage none, counted in the tables at 0 kbit/s, so each lowers its run's mean per flow (and adds nothing to a sum); check that every declared flow belongs to its run",
			args...)
		if withTables {
			out.Notes = append(out.Notes, w)
		}
	}
	if len(res.Late) == 0 {
		return
	}
	const perRun = 10 // warning lines per run; the rest are counted
	runs := map[string]int{}
	for _, l := range res.Late {
		runs[l.RunKey]++
		if n := runs[l.RunKey]; n > perRun {
			if n == perRun+1 {
				more := 0
				for _, m := range res.Late {
					if m.RunKey == l.RunKey {
						more++
					}
				}
				out.add(campaign.Caution, campaign.WarnLate, "run %s: %d more late %s (every flow's rate: %s)", filepath.Base(l.RunKey), more-perRun, map[bool]string{true: "flow", false: "flows"}[more-perRun == 1], campaign.OptCSV)
			}
			continue
		}
		out.add(campaign.Caution, campaign.WarnLate, "run %s: flow %s:%d → %s:%d started late: first data at %.3f s, %.3f s after the run's median flow start (%.3f s); its rate may be up to %.0f %% too high",
			filepath.Base(l.RunKey), l.Src, l.SPort, l.Dst, l.DPort, l.FirstS, l.LateS, l.MedianS, l.Overstat*100)
	}
	sum := out.add(campaign.Caution, campaign.WarnLateSummary, "%s in %s started late relative to their run's others, and no application start time is known: their rates start at the first data segment (an application whose SYN or first data waited for a route looks late). "+
		"Fix: give the start times with %s FILE (CSV: src, sport, dst, dport, start_s[, stop_s], label columns; ns-3: %s groundtruth-all.csv %s run=seed), "+
		"keep the testbed's ground truth next to the captures, or measure every flow over one window with %s START:END (docs/metrics.md#interval)",
		count(len(res.Late), "flow"), count(len(runs), "run"), campaign.OptStarts, campaign.OptStarts, campaign.OptStartsRename, campaign.OptInterval)
	if withTables {
		out.Notes = append(out.Notes, sum)
	}
}

// Stats merges per-flow CSVs written by Goodput's rows
// (export.WriteGoodputCSV; for example one per shard) and computes the
// study's tables, as t asks (t.Group is required). A flow given twice
// with the same numbers (the same CSV twice, overlapping shards) is
// counted once, with a warning; with different numbers it is an input
// error (campaign.ErrConflict, wrapped with ErrInput), as is a CSV that
// cannot be read. Without this a repeated CSV doubles every per-run sum
// (trial13 A5). The Outcome is never nil.
func Stats(paths []string, t TableOptions) (*Outcome, error) {
	out := &Outcome{Spec: t.Spec()}
	if t.Group == "" {
		return out, campaign.InvalidOption(campaign.OptGroup, "%s is required", campaign.OptGroup)
	}
	if len(paths) == 0 {
		return out, errors.New("stats: name the per-flow CSVs to merge")
	}
	if err := t.validate(false); err != nil {
		return out, err
	}
	var sets [][]campaign.FlowRow
	var srcs [][]campaign.RowSource
	given := map[string]int{}
	for _, p := range paths {
		given[p]++
	}
	for i, p := range paths {
		rs, src, err := export.ReadGoodputCSVSources(p)
		if err != nil {
			return out, input(err)
		}
		if given[p] > 1 { // one file given twice: say which argument (trial14 B9)
			for j := range src {
				src[j].Name = fmt.Sprintf("%s (argument %d)", p, i+1)
			}
		}
		sets, srcs = append(sets, rs), append(srcs, src)
	}
	out.shards(paths, sets)
	rows, dups, err := campaign.MergeRows(sets, srcs)
	if err != nil {
		return out, input(err)
	}
	var names []string
	for _, r := range rows {
		for n := range r.Labels {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	out.add(campaign.Info, campaign.WarnSummary, "stats: %s from %s", count(len(rows), "flow"), count(len(paths), "file"))
	if err := t.checkGroupIn(names, "%s", strings.Join(paths, " ")); err != nil {
		return out, err // before any table is written
	}
	if len(dups) > 0 {
		out.add(campaign.Caution, campaign.WarnRepeated, "%s given twice (same file, run, flow and labels, same numbers) counted once, e.g. %s repeats %s",
			count(len(dups), "flow"), dups[0].Again, dups[0].Kept)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].RunKey < rows[j].RunKey })
	out.Rows = rows
	return out, out.tables(t, true)
}

// shards warns, loudly, when the per-flow tables merged (sets[i] read
// from paths[i]) hold parts of a sharded campaign (FlowRow.Shard, I/N with
// N > 1) with some missing — the tables would hold fewer runs than the
// campaign without a word — or one part from two inputs that are not one
// file, or parts of different splits. An input without rows records no
// shard (a shard whose runs hold no flow writes only the header): it is
// named as where a missing shard may be. Tables written before
// tcpviz.goodput/4 record no shard and are not checked.
func (out *Outcome) shards(paths []string, sets [][]campaign.FlowRow) {
	from := map[campaign.Shard][]int{} // shard → inputs holding it
	var empty []string
	for i, set := range sets {
		if len(set) == 0 {
			empty = append(empty, paths[i])
		}
		seen := map[campaign.Shard]bool{}
		for _, r := range set {
			if r.Shard.N > 1 && !seen[r.Shard] {
				seen[r.Shard] = true
				from[r.Shard] = append(from[r.Shard], i)
			}
		}
	}
	splits := map[int]bool{}
	var ns []int
	for sh := range from {
		if !splits[sh.N] {
			splits[sh.N] = true
			ns = append(ns, sh.N)
		}
	}
	sort.Ints(ns)
	if len(ns) > 1 {
		var parts []string
		for _, n := range ns {
			parts = append(parts, fmt.Sprintf("of %d", n))
		}
		out.add(campaign.Loud, campaign.WarnShards, "the per-flow tables hold shards of different splits (%s): outputs of different --shard runs, whose runs may overlap or be missing", strings.Join(parts, ", "))
	}
	for _, n := range ns {
		var missing []string
		for i := 1; i <= n; i++ {
			if _, ok := from[campaign.Shard{I: i, N: n}]; !ok {
				missing = append(missing, campaign.Shard{I: i, N: n}.String())
			}
		}
		what := map[bool]string{true: "shard", false: "shards"}[len(missing) == 1] + " " + strings.Join(missing, ", ")
		switch {
		case len(missing) == 0:
		case len(missing) <= len(empty):
			// A shard whose runs hold no flow writes only the header.
			out.add(campaign.Caution, campaign.WarnShards, "%s of %d in no row: %s without rows (%s) %s, if the %s runs hold no flow; otherwise the tables lack runs",
				what, n, map[bool]string{true: "the input", false: "the inputs"}[len(empty) == 1], strings.Join(empty, ", "),
				map[bool]string{true: "is probably it", false: "are probably them"}[len(missing) == 1], map[bool]string{true: "shard's", false: "shards'"}[len(missing) == 1])
		default:
			where := ""
			if len(empty) > 0 {
				where = fmt.Sprintf(" (%s without rows: %s)", map[bool]string{true: "one in the input", false: "some among the inputs"}[len(empty) == 1], strings.Join(empty, ", "))
			}
			out.add(campaign.Loud, campaign.WarnShards, "%s of %d missing%s: the tables hold the runs of %d of the campaign's %d shards at most; merge every shard's CSV",
				what, n, where, n-len(missing)+len(empty), n)
		}
		for i := 1; i <= n; i++ {
			in := from[campaign.Shard{I: i, N: n}]
			for a := 1; a < len(in); a++ {
				if sameFile(paths[in[0]], paths[in[a]]) {
					continue
				}
				out.add(campaign.Loud, campaign.WarnShards, "shard %d/%d comes from %s and from %s: one part of the campaign given twice; rows equal in both count once, rows that differ (another spelling of the captures' paths) count twice",
					i, n, paths[in[0]], paths[in[a]])
			}
		}
	}
}

// sameFile reports whether a and b name one file (os.SameFile).
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// someOf says how many of total flows took a value from a source, and
// that the rest did not only when there is a rest: "(3 of 24 flows; the
// rest: their first data)", "(all 24 flows)".
func someOf(n, total int, rest string) string {
	switch {
	case n == total && total == 1:
		return "(the 1 flow)"
	case n == total:
		return "(all " + count(total, "flow") + ")"
	}
	return "(" + strconv.Itoa(n) + " of " + count(total, "flow") + "; the rest: " + rest + ")"
}
