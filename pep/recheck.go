package pep

import (
	"maps"
	"os"
	"slices"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// MaxRecheck is how many connections of one capture a Recheck analyses
// again with their detail kept: the second look is rare outside PEP runs,
// and bounded so that a capture of many stalled connections is not read
// twice in full.
const MaxRecheck = 16

// MaxLinkRecheck is how many connections of one capture a Recheck holds
// until the capture's link-layer evidence is whole (Recheck.Links, at the
// end of the pass): a capture taken beside a sender of many connections
// to hosts on its link (a LAN client) may hold thousands. Verdicts past it
// stay Possible, their evidence saying that the link layer was not read.
const MaxLinkRecheck = 4096

// Recheck is the second look at a capture analysed without
// per-connection detail (tcpanalysis Options.Keep) or its link layer.
// There a zero-window stall still open at the end is invisible, so a
// verdict that one criterion supports and that saw zero-window events
// (NeedsDetail) may turn Likely with the detail kept; and an acknowledger
// on the sender's link (Verdict.LinkMatters: Possible, or Likely through
// a stall alone) may be decided by the link layer (Verdict.WithLinks).
// Add collects such connections while the first pass's results are read;
// Run analyses the capture again, keeping the detail of the first kind
// only, judges the second with the link-layer evidence of the first pass
// (Links), and reports every collected connection's final verdict. It is the one rule behind
// FlowNotes, 'tcpviz flows' and the campaign's vantage (campaign,
// AtProxy, AtProxyPossible). A Recheck serves one capture; its zero value
// is ready to use with no path RTT.
type Recheck struct {
	// PathRTT is Options.PathRTT of the verdicts judged again (0:
	// unknown).
	PathRTT time.Duration
	// Links is the capture's link-layer evidence, whole when Run is
	// called: LinksOf the report, or, for a report streamed out
	// (tcpanalysis Options.OnDone), a Links the caller built with AddConn
	// for every connection and AddOwn at the end. nil leaves the held
	// verdicts as the first pass judged them.
	Links  *Links
	detail map[int]Verdict // connection index → first verdict, to judge again with detail
	link   map[int]Verdict // connection index → verdict to judge with the link layer
}

// Add records r for Run when its verdict v (for data direction v.Dir, from
// a pass without r's detail or link layer) may change: NeedsDetail, with
// fewer than MaxRecheck connections waiting for it, or LinkMatters, with
// fewer than MaxLinkRecheck. It reports whether r was recorded; the
// caller then waits for Run's verdict on it.
func (rc *Recheck) Add(r *tcpanalysis.ConnResult, v Verdict) bool {
	switch {
	case !v.Likely && NeedsDetail(r, v.Dir, v) && len(rc.detail) < MaxRecheck:
		if rc.detail == nil {
			rc.detail = map[int]Verdict{}
		}
		rc.detail[r.Conn.Index] = v.Keep()
	case v.LinkMatters() && len(rc.link) < MaxLinkRecheck:
		if rc.link == nil {
			rc.link = map[int]Verdict{}
		}
		rc.link[r.Conn.Index] = v.Keep()
	default:
		return false
	}
	return true
}

// Rereadable reports whether the capture at path can be read a second time:
// a regular file, not standard input ("-") or a stream (a FIFO, bash's
// <(zcat f)), whose bytes the first read took.
func Rereadable(path string) bool {
	fi, err := os.Stat(path)
	return path != "-" && err == nil && fi.Mode().IsRegular()
}

// Len is the number of connections waiting for Run.
func (rc *Recheck) Len() int { return len(rc.detail) + len(rc.link) }

// Rereads is the number of connections waiting for Run's second read of
// the capture (their detail kept); the others wait for Links only.
func (rc *Recheck) Rereads() int { return len(rc.detail) }

// Run analyses the capture at path again with opts through analyze (nil:
// tcpanalysis.AnalyzeFile; a caller passes its own to apply a capture
// filter), keeping the detail and RTT quantiles of the connections Add
// recorded for it (opts.Keep, opts.OnDone and opts.RTTQuantiles are set;
// the results are streamed, so memory follows the open connections), and
// judges the verdicts that wait for the link layer with rc.Links. It calls found, in connection index order, for every recorded
// connection with its final verdict (Likely, Possible, or neither). When
// path cannot be read again (Rereadable: standard input, a FIFO, already
// read once), or a read fails, the verdicts of the first pass are given as
// they were (found is still called); the error of analyze is returned.
func (rc *Recheck) Run(path string, opts tcpanalysis.Options, analyze func(string, tcpanalysis.Options) (*tcpanalysis.Report, error), found func(conn int, v Verdict)) error {
	if rc.Len() == 0 {
		return nil
	}
	final := map[int]Verdict{}
	for i, v := range rc.link {
		final[i] = v
	}
	for i, v := range rc.detail {
		final[i] = v // as the first pass judged, unless the second gives it
	}
	var err error
	if len(rc.detail) > 0 && Rereadable(path) {
		if analyze == nil {
			analyze = tcpanalysis.AnalyzeFile
		}
		opts.Keep = func(i int) bool { _, ok := rc.detail[i]; return ok }
		opts.RTTQuantiles = true
		opts.OnDone = func(r *tcpanalysis.ConnResult, _ capture.Timestamp) {
			if v, ok := rc.detail[r.Conn.Index]; ok {
				final[r.Conn.Index] = DetectWith(r, v.Dir, Options{PathRTT: rc.PathRTT}).Keep()
			}
		}
		if _, err = analyze(path, opts); err != nil {
			for i, v := range rc.detail {
				final[i] = v
			}
		}
	}
	for _, i := range slices.Sorted(maps.Keys(final)) {
		found(i, final[i].WithLinks(rc.Links))
	}
	return err
}
