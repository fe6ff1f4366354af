package tcpanalysis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// analyzePath analyses the file at path with one Analyzer: through
// pipeline (frames decoded on the analysis's goroutine or, when it lags,
// on the reading one: pipelineFrames) or on the calling goroutine
// (Options.Inline, Reader.NextBatch).
func analyzePath(t *testing.T, path string, opts Options) (*Report, error) {
	t.Helper()
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return analyze(r, opts, 1)
}

// samePipelines fails t unless the reports of path through pipelineFrames
// and inline are equal: every result, the reader's stats and warnings, or
// the error.
func samePipelines(t *testing.T, path string, opts Options) {
	t.Helper()
	in := opts
	in.Inline = true
	want, werr := analyzePath(t, path, in)
	got, gerr := analyzePath(t, path, opts)
	sameReports(t, path+" (want: inline)", want, got, werr, gerr)
}

// sameReports fails t unless two analyses of one file ended alike: the
// same error, or the same reader stats, warnings and results. It reports
// whether there were reports to compare.
func sameReports(t *testing.T, name string, want, got *Report, werr, gerr error) bool {
	t.Helper()
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("%s: error %v, want %v", name, gerr, werr)
	}
	if werr != nil {
		return false
	}
	if !reflect.DeepEqual(want.Stats, got.Stats) || !reflect.DeepEqual(want.Warnings, got.Warnings) {
		t.Fatalf("%s: stats, warnings\n got %+v %q\nwant %+v %q", name, got.Stats, got.Warnings, want.Stats, want.Warnings)
	}
	sameResults(t, name, want, got)
	return true
}

// TestPipelineFramesSame: a plain pcap file read through pipelineFrames
// gives the report of the reading that decodes as it reads, on the
// shared corpus and cases and on generated captures (whole, cut, with a
// filter as the second pass of a query takes).
func TestPipelineFramesSame(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, g := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"short", func(w *bytes.Buffer) error {
			return pcaptest.WriteShort(w, pcaptest.GenOptions{Packets: 3 * releaseEvery, Seed: 7})
		}},
		{"bulk", func(w *bytes.Buffer) error {
			return pcaptest.WriteBulk(w, pcaptest.GenOptions{Packets: 100000, Seed: 2})
		}},
	} {
		var w bytes.Buffer
		if err := g.write(&w); err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{0, 1000, 123457} {
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.pcap", g.name, cut))
			if err := os.WriteFile(p, w.Bytes()[:w.Len()-cut], 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
	}
	for _, sub := range []string{"corpus", "cases"} {
		m, _ := filepath.Glob(filepath.Join(sharedDir(t), sub, "*.pcap"))
		files = append(files, m...)
	}
	n := 0
	for _, p := range files {
		r, err := capture.Open(p)
		if err != nil {
			continue
		}
		ok := r.CanReadFrames()
		r.Close()
		if !ok {
			continue
		}
		n++
		samePipelines(t, p, Options{Detail: true})
		samePipelines(t, p, Options{Only: func(int) bool { return false }})
		samePipelines(t, p, Options{Keep: func(i int) bool { return i == 0 }, Filter: func(s *capture.Segment) bool { return s.Src.Port()%2 == 0 }})
	}
	if n < 10 {
		t.Fatalf("%d plain pcap files read, want more", n)
	}
}
