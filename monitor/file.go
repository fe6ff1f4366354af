package monitor

import (
	"fmt"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/capture/live"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// AnalyzeFile analyses the capture file at path as tcpanalysis.AnalyzeFile
// does, keeping only the frames the pcap-filter(7) expression filter
// accepts (live.FileFilter: the filter a live capture applies, so that a
// -w file read back with the same filter gives the same numbers). Frame
// numbers and the time origin stay the file's (docs/schema.md#selection).
// An empty filter keeps every frame. Errors: a filter that does not
// compile, or that cannot be compiled for a link type the file holds
// ("PATH: …"), wraps live.ErrFilter; otherwise those of capture.Open and
// tcpanalysis.Analyze.
func AnalyzeFile(path, filter string, opts tcpanalysis.Options) (*tcpanalysis.Report, error) {
	if filter == "" {
		return tcpanalysis.AnalyzeFile(path, opts)
	}
	ff, err := live.NewFileFilter(filter, nil)
	if err != nil {
		return nil, err
	}
	r, err := capture.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.SetFileFilter(ff.Hook)
	rep, err := tcpanalysis.Analyze(r, opts)
	if err != nil {
		return nil, err
	}
	if err := ff.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", r.Name(), err) // "stdin" for a spooled standard input
	}
	return rep, nil
}
