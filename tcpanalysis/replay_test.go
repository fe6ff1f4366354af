package tcpanalysis

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestReplaySameAsOnlyKey: a pass over one 4-tuple that reads only its
// records through the index of a counting pass (Options.Replay,
// capture.Reader.ReadIndexed) gives the report of the OnlyKey pass that
// reads every frame: the same connections, results, stats and warnings,
// for the first, the largest and the last 4-tuple of generated captures
// (three release periods of short connections, interleaved bulk ones),
// a connection's late segment that only a release tells apart, the shared
// corpus and cases, and an ns-3 802.11 capture. An index over its budget
// is read whole, with the same report; a file that grew since is read as
// the first pass saw it.
func TestReplaySameAsOnlyKey(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		writeGen(t, dir, "short.pcap", func(w io.Writer) error {
			return pcaptest.WriteShort(w, pcaptest.GenOptions{Packets: 3*releaseEvery + 77, Seed: 7})
		}),
		writeGen(t, dir, "bulk.pcap", func(w io.Writer) error {
			return pcaptest.WriteBulk(w, pcaptest.GenOptions{Packets: 150000, Seed: 3})
		}),
	}
	// Records whose original length is below their captured length
	// (capture.Stats.CapOverWire): the second pass bounds them as the
	// first did.
	files = append(files, writeGen(t, dir, "capoverwire.pcap", func(w io.Writer) error {
		var b bytes.Buffer
		if err := pcaptest.WriteShort(&b, pcaptest.GenOptions{Packets: 5000, Seed: 8}); err != nil {
			return err
		}
		d := b.Bytes()
		for off, k := 24, 0; off+16 <= len(d); k++ {
			caplen := binary.LittleEndian.Uint32(d[off+8:])
			if k%7 == 3 {
				binary.LittleEndian.PutUint32(d[off+12:], caplen/2)
			}
			off += 16 + int(caplen)
		}
		_, err := w.Write(d)
		return err
	}))
	late := filepath.Join(dir, "late.pcap") // a release decides that a segment is late
	if err := os.WriteFile(late, lateAfterClose(), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, late)
	for _, g := range []string{"corpus/*.pcap", "cases/*.pcap"} {
		m, _ := filepath.Glob(filepath.Join(sharedDir(t), g))
		files = append(files, m...)
	}
	files = append(files, sharedtest.Gunzip(t, filepath.Join(sharedDir(t), "ns3", "tcp-aodv-r1-1-0.pcap.gz"), filepath.Join(dir, "aodv.pcap")))
	replayed := 0
	for _, path := range files {
		if r, err := capture.Open(path); err != nil {
			continue // not a capture this test is about
		} else {
			r.Close()
		}
		ix := capture.NewFrameIndex(0)
		full, err := analyzePath(t, path, Options{Only: func(int) bool { return false }, Index: ix})
		if err != nil || len(full.Conns) == 0 {
			continue
		}
		if ok, why := ix.Valid(); !ok {
			t.Logf("%s: no index: %s", path, why)
			continue
		}
		if filepath.Base(path) == "capoverwire.pcap" && full.Stats.CapOverWire != 714 {
			t.Errorf("%s: CapOverWire %d, want 714 (records 3, 10, … of 5000)", path, full.Stats.CapOverWire)
		}
		for _, k := range testKeys(full) {
			key := k
			keep := func(int) bool { return true }
			want, werr := analyzePath(t, path, Options{Keep: keep, OnlyKey: &key})
			r, err := capture.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if !r.CanReadIndexed(ix) {
				t.Fatalf("%s: a valid index cannot be read", path)
			}
			r.Close()
			got, gerr := analyzePath(t, path, Options{Keep: keep, OnlyKey: &key, Replay: ix})
			if sameReports(t, fmt.Sprintf("%s %v (want: OnlyKey reading every frame)", path, key), want, got, werr, gerr) {
				replayed++
			}
		}
	}
	t.Logf("%d replayed reports compared", replayed)
	if replayed < 40 {
		t.Fatalf("%d replayed reports compared, want more", replayed)
	}

	// Over its budget: dropped, and the second pass reads the whole file.
	path := files[0]
	ix := capture.NewFrameIndex(4096)
	full, err := analyzePath(t, path, Options{Only: func(int) bool { return false }, Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := ix.Valid(); ok || why != "the index outgrew its memory budget" {
		t.Fatalf("an index over its budget: valid %v (%s)", ok, why)
	}
	key := full.Conns[1].Conn.Key
	want, werr := analyzePath(t, path, Options{OnlyKey: &key})
	got, gerr := analyzePath(t, path, Options{OnlyKey: &key, Replay: ix})
	sameReports(t, path+" dropped index", want, got, werr, gerr)

	// A file that grew since (a capture still being written): read up to
	// where the first pass ended, as the first pass saw it.
	ix = capture.NewFrameIndex(0)
	if _, err := analyzePath(t, path, Options{Only: func(int) bool { return false }, Index: ix}); err != nil {
		t.Fatal(err)
	}
	want, werr = analyzePath(t, path, Options{OnlyKey: &key})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, gerr = analyzePath(t, path, Options{OnlyKey: &key, Replay: ix})
	sameReports(t, path+" grown", want, got, werr, gerr)
}

// TestReadIndexed: ReadIndexed returns the segments of one tag, and only
// those, with the frame and segment numbers and file offsets a split read
// gives them; another 4-tuple's segment sharing the tag comes as a stub.
func TestReadIndexed(t *testing.T) {
	path := writeGen(t, t.TempDir(), "short.pcap", func(w io.Writer) error {
		return pcaptest.WriteShort(w, pcaptest.GenOptions{Packets: 20000, Seed: 5})
	})
	type seen struct {
		frame, off, n int64
		key           flows.Key
	}
	var all []seen
	ix := capture.NewFrameIndex(0)
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ix.Begin(r)
	err = pipeline(r, func(s *capture.Segment) {
		ix.Add(s, IndexTag(s.Src, s.Dst))
		all = append(all, seen{s.Frame, s.Offset, int64(len(all) + 1), flows.KeyOf(s.Src, s.Dst)})
	})
	ix.End(r, err)
	r.Close()
	if ok, why := ix.Valid(); !ok {
		t.Fatalf("index: %s", why)
	}
	if ix.Segments() != int64(len(all)) {
		t.Fatalf("index of %d segments, read %d", ix.Segments(), len(all))
	}
	key := all[len(all)/2].key
	tag := IndexTag(key.Lo, key.Hi)
	var want []seen
	stubs := 0
	for _, s := range all {
		if IndexTag(s.key.Lo, s.key.Hi) == tag {
			want = append(want, s)
			if s.key != key {
				stubs++
			}
		}
	}
	if stubs == 0 {
		t.Fatalf("no other 4-tuple shares tag %d: the test checks no stub", tag)
	}
	r, err = capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.OnlyEndpoints(key.Lo, key.Hi)
	var got []seen
	gotStubs := 0
	err = r.ReadIndexed(ix, tag, func(s *capture.Segment, n int64) {
		k := key
		if !s.Src.IsValid() {
			gotStubs++
			k = all[n-1].key
		} else if flows.KeyOf(s.Src, s.Dst) != key {
			t.Fatalf("frame %d: %v decoded, want %v or a stub", s.Frame, flows.KeyOf(s.Src, s.Dst), key)
		}
		got = append(got, seen{s.Frame, s.Offset, n, k})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || gotStubs != stubs {
		t.Fatalf("%d segments (%d stubs), want %d (%d)", len(got), gotStubs, len(want), stubs)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("segment %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	// The file changed since, its size kept: a record of the tag no
	// longer a TCP segment (its EtherType made ARP's) is an error naming
	// the frame.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w0 := want[len(want)/2]
	b[w0.off+16+12], b[w0.off+16+13] = 0x08, 0x06
	changed := filepath.Join(t.TempDir(), "changed.pcap")
	if err := os.WriteFile(changed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := capture.Open(changed)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	r2.OnlyEndpoints(key.Lo, key.Hi)
	err = r2.ReadIndexed(ix, tag, func(*capture.Segment, int64) {})
	var fe *capture.FrameError
	if !errors.As(err, &fe) || !errors.Is(err, capture.ErrFileChanged) || fe.Frame != w0.frame || fe.File != changed {
		t.Fatalf("changed file: %v, want a FrameError at frame %d wrapping ErrFileChanged", err, w0.frame)
	}
}

// writeGen writes what write writes to dir/name and returns its path.
func writeGen(t *testing.T, dir, name string, write func(io.Writer) error) string {
	t.Helper()
	var w bytes.Buffer
	if err := write(&w); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
