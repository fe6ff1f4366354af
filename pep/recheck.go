package pep

import (
	"maps"
	"slices"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// MaxRecheck is how many connections of one capture a Recheck analyses
// again with their detail kept: the second look is rare outside PEP runs,
// and bounded so that a capture of many stalled connections is not read
// twice in full.
const MaxRecheck = 16

// Recheck is the second look at a capture analysed without
// per-connection detail (tcpanalysis Options.Keep). There a zero-window
// stall still open at the end is invisible, so a verdict that one
// criterion supports and that saw zero-window events (NeedsDetail) may
// turn Likely with the detail kept. Add collects such connections while
// the first pass's results are read; Run analyses the capture again,
// keeping the detail of those connections only, and reports the verdicts
// that turned Likely. It is the one rule behind FlowNotes, 'tcpviz flows'
// and the campaign's vantage (campaign, AtProxy). The zero value is ready
// to use; a Recheck serves one capture.
type Recheck struct {
	dirs map[int]flows.Direction // connection index → data direction judged
}

// Add records r for Run when its verdict v (for data direction v.Dir, from
// a pass without r's detail) is not Likely but NeedsDetail, and fewer than
// MaxRecheck connections wait. It reports whether r was recorded.
func (rc *Recheck) Add(r *tcpanalysis.ConnResult, v Verdict) bool {
	if v.Likely || !NeedsDetail(r, v.Dir, v) || len(rc.dirs) >= MaxRecheck {
		return false
	}
	if rc.dirs == nil {
		rc.dirs = map[int]flows.Direction{}
	}
	rc.dirs[r.Conn.Index] = v.Dir
	return true
}

// Len is the number of connections waiting for Run.
func (rc *Recheck) Len() int { return len(rc.dirs) }

// Run analyses the capture at path again with opts through analyze (nil:
// tcpanalysis.AnalyzeFile; a caller passes its own to apply a capture
// filter), keeping the detail and RTT quantiles of the connections Add
// recorded (opts.Keep, opts.OnDone and opts.RTTQuantiles are set; the
// results are streamed, so memory follows the open connections). It calls
// found, in connection index order, for every recorded connection whose
// verdict with its detail, in the direction Add judged, is Likely. Nothing
// is read when no connection waits, or when path is "-" (standard input,
// already read once). Errors: those of analyze (the verdicts of the first
// pass then stand).
func (rc *Recheck) Run(path string, opts tcpanalysis.Options, analyze func(string, tcpanalysis.Options) (*tcpanalysis.Report, error), found func(conn int, v Verdict)) error {
	if len(rc.dirs) == 0 || path == "-" {
		return nil
	}
	if analyze == nil {
		analyze = tcpanalysis.AnalyzeFile
	}
	likely := map[int]Verdict{}
	opts.Keep = func(i int) bool { _, ok := rc.dirs[i]; return ok }
	opts.RTTQuantiles = true
	opts.OnDone = func(r *tcpanalysis.ConnResult, _ capture.Timestamp) {
		if d, ok := rc.dirs[r.Conn.Index]; ok {
			if v := Detect(r, d); v.Likely {
				likely[r.Conn.Index] = v
			}
		}
	}
	if _, err := analyze(path, opts); err != nil {
		return err
	}
	for _, i := range slices.Sorted(maps.Keys(likely)) {
		found(i, likely[i])
	}
	return nil
}
