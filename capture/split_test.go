//go:build unix

package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// readResult is everything a Reader gives: the segments, the final error,
// the stats and the warnings.
type readResult struct {
	segs     []Segment
	err      string
	stats    Stats
	warnings []string
}

// normSeg clears the fields a segment does not define (left from an
// earlier frame decoded into the same Segment): 802.11 addresses of a
// frame that is not 802.11, ICMP facts of a TCP segment.
func normSeg(s Segment) Segment {
	if !s.Src.IsValid() && !s.Dst.IsValid() && s.ICMP == ICMPNone {
		// A stub (OnlyEndpoints): these fields only.
		return Segment{Frame: s.Frame, Time: s.Time, Iface: s.Iface, CapLen: s.CapLen, WireLen: s.WireLen, FineTime: s.FineTime}
	}
	if !s.WiFi {
		s.RA, s.TA = [6]byte{}, [6]byte{}
	}
	if s.ICMP == ICMPNone {
		s.ICMPFrom, s.ICMPMTU = netip.Addr{}, 0
	}
	return s
}

func errString(err error) string {
	if err == nil || err == io.EOF {
		return ""
	}
	return fmt.Sprintf("%T %v", err, err)
}

// readNext reads r with Next.
func readNext(r *Reader) readResult {
	var res readResult
	var s Segment
	for {
		err := r.Next(&s)
		if err != nil {
			res.err = errString(err)
			break
		}
		res.segs = append(res.segs, normSeg(s))
	}
	res.stats, res.warnings = r.Stats(), r.Warnings()
	return res
}

// readFrames reads r with ReadFrames and Segments on one goroutine,
// ahead batches of batchCap frames filled before the oldest is consumed;
// decode says, per batch, whether the filling side decodes it (0: never,
// 1: always, 2: some).
func readFrames(t *testing.T, r *Reader, batchCap, ahead, decode int) readResult {
	t.Helper()
	return readSplit(t, r, batchCap, ahead, decode, false)
}

// readSplit is readFrames, and with raw readSplitRaw: every batch's and
// the consumer's segments set to sentinels before decoding and again once
// consumed, and only stubs reduced by normSeg.
func readSplit(t *testing.T, r *Reader, batchCap, ahead, decode int, raw bool) readResult {
	t.Helper()
	if !r.CanReadFrames() {
		t.Fatalf("%s: CanReadFrames false", r.Name())
	}
	fill := func(segs []Segment) {
		if !raw {
			return
		}
		for i := range segs {
			segs[i] = sentinel()
		}
	}
	var res readResult
	var free, pending []*FrameBatch
	for range ahead {
		b := newFrameBatch(batchCap)
		fill(b.segs)
		free = append(free, b)
	}
	more, i := true, 0
	for {
		for more && len(free) > 0 {
			b := free[0]
			free = free[1:]
			first := r.split == nil
			more = r.ReadFrames(b)
			if first {
				fill(r.split.segs[:])
			}
			switch {
			case decode == 1, decode == 2 && i%3 == 0:
				b.Decode()
			case decode == 2 && i%3 == 1:
				b.TryDecode()
			}
			i++
			pending = append(pending, b)
		}
		if len(pending) == 0 {
			t.Fatalf("%s: no batch ended the capture", r.Name())
		}
		b := pending[0]
		pending = pending[1:]
		err := r.Segments(b, func(segs []Segment) {
			for _, s := range segs {
				if !raw || !s.Src.IsValid() && !s.Dst.IsValid() && s.ICMP == ICMPNone {
					s = normSeg(s)
				}
				res.segs = append(res.segs, s)
			}
			fill(segs[:cap(segs)])
		})
		if err != nil {
			if len(pending) > 0 || more {
				t.Fatalf("%s: Segments ended with %v before the last batch", r.Name(), err)
			}
			res.err = errString(err)
			break
		}
		if !more && len(pending) == 0 {
			t.Fatalf("%s: the last batch gave no error", r.Name())
		}
		free = append(free, b)
	}
	res.stats, res.warnings = r.Stats(), r.Warnings()
	return res
}

// writeTemp writes b to dir/name and returns its path.
func writeTemp(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sameRead fails t unless a split read of path, every way, gives what Next
// gives.
func sameRead(t *testing.T, path string) { sameReadOnly(t, path, nil) }

// sameReadOnly is sameRead with Reader.OnlyEndpoints(only[0], only[1])
// when only is set: the stubs in the same places (split reading takes
// them without decoding, otherEthIPv4TCP), the same segments between the
// two endpoints, stats and warnings.
func sameReadOnly(t *testing.T, path string, only *[2]netip.AddrPort) {
	t.Helper()
	open := func() *Reader {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if only != nil {
			r.OnlyEndpoints(only[0], only[1])
		}
		return r
	}
	want := func() readResult {
		r := open()
		defer r.Close()
		return readNext(r)
	}()
	for _, c := range []struct{ cap, ahead, decode int }{
		{splitFrames, 4, 0}, {splitFrames, 4, 1}, {splitFrames, 3, 2}, {1, 2, 0}, {7, 5, 2}, {100, 1, 1},
	} {
		r := open()
		got := readFrames(t, r, c.cap, c.ahead, c.decode)
		r.Close()
		compareRead(t, fmt.Sprintf("%s %+v only %v", filepath.Base(path), c, only), want, got)
	}
}

func compareRead(t *testing.T, name string, want, got readResult) {
	t.Helper()
	if len(want.segs) != len(got.segs) {
		t.Fatalf("%s: %d segments, want %d", name, len(got.segs), len(want.segs))
	}
	for i := range want.segs {
		if want.segs[i] != got.segs[i] {
			t.Fatalf("%s: segment %d:\n got %+v\nwant %+v", name, i, got.segs[i], want.segs[i])
		}
	}
	if got.err != want.err {
		t.Fatalf("%s: error %q, want %q", name, got.err, want.err)
	}
	if got.stats != want.stats {
		t.Fatalf("%s: stats\n got %+v\nwant %+v", name, got.stats, want.stats)
	}
	if !reflect.DeepEqual(got.warnings, want.warnings) {
		t.Fatalf("%s: warnings\n got %q\nwant %q", name, got.warnings, want.warnings)
	}
}

// TestSplitCorpus: every plain pcap of ../shared (corpus, cases, hostile)
// reads the same split as with Next.
func TestSplitCorpus(t *testing.T) {
	root := sharedDir(t)
	n := 0
	for _, sub := range []string{"corpus", "cases", "hostile"} {
		filepath.WalkDir(filepath.Join(root, sub), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			r, err := Open(p)
			if err != nil {
				return nil
			}
			ok := r.CanReadFrames()
			r.Close()
			if ok {
				n++
				sameRead(t, p)
			}
			return nil
		})
	}
	if n < 10 {
		t.Fatalf("only %d plain pcap files in ../shared", n)
	}
}

// TestSplitOnlyEndpoints: with Reader.OnlyEndpoints, every plain pcap of
// ../shared and a generated bulk capture (whole, and with bytes changed at
// random) read split give Next's segments (the 4-tuple's decoded, the
// others stubs in their places), stats and warnings, for the first and
// the last segment's endpoints and a pair that is nowhere.
func TestSplitOnlyEndpoints(t *testing.T) {
	var files []string
	for _, sub := range []string{"corpus", "cases", "hostile"} {
		m, _ := filepath.Glob(filepath.Join(sharedDir(t), sub, "*.pcap"))
		files = append(files, m...)
	}
	var w bytes.Buffer
	if err := pcaptest.WriteBulk(&w, pcaptest.GenOptions{Packets: 40000, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "bulk.pcap")
	os.WriteFile(whole, w.Bytes(), 0o644)
	b := bytes.Clone(w.Bytes())
	rng := rand.New(rand.NewPCG(5, 6))
	for range 400 {
		b[24+rng.IntN(len(b)-24)] ^= byte(1 + rng.IntN(255))
	}
	damaged := filepath.Join(dir, "bulk-damaged.pcap")
	os.WriteFile(damaged, b, 0o644)
	files = append(files, whole, damaged)
	n := 0
	for _, p := range files {
		r, err := Open(p)
		if err != nil {
			continue
		}
		ok := r.CanReadFrames()
		all := readNext(r)
		r.Close()
		if !ok || len(all.segs) == 0 {
			continue
		}
		n++
		first, last := all.segs[0], all.segs[len(all.segs)-1]
		nowhere := netip.MustParseAddrPort("192.0.2.99:9")
		for _, k := range [][2]netip.AddrPort{{first.Src, first.Dst}, {last.Dst, last.Src}, {nowhere, nowhere}} {
			sameReadOnly(t, p, &k)
		}
	}
	if n < 10 {
		t.Fatalf("only %d captures read", n)
	}
}

// records returns the offsets of the records of a pcap in b (little-endian
// header), up to the first that does not fit.
func records(b []byte) []int {
	var offs []int
	for off := 24; off+16 <= len(b); {
		offs = append(offs, off)
		off += 16 + int(binary.LittleEndian.Uint32(b[off+8:]))
	}
	return offs
}

// TestSplitGenerated: generated captures, whole and damaged (cut
// anywhere, impossible lengths, IP lengths beyond the frame, bytes
// changed at random), huge and empty records, read the same split as with
// Next.
func TestSplitGenerated(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string { return writeTemp(t, dir, name, b) }
	var bulk, short, full bytes.Buffer
	if err := pcaptest.WriteBulk(&bulk, pcaptest.GenOptions{Packets: 30000, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := pcaptest.WriteShort(&short, pcaptest.GenOptions{Packets: 20000, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	if err := pcaptest.WriteBulk(&full, pcaptest.GenOptions{Packets: 5000, Seed: 5, Snaplen: 9000}); err != nil {
		t.Fatal(err)
	}
	sameRead(t, write("bulk.pcap", bulk.Bytes()))
	sameRead(t, write("short.pcap", short.Bytes()))
	sameRead(t, write("full.pcap", full.Bytes()))

	rng := rand.New(rand.NewPCG(11, 12))
	b := bulk.Bytes()
	offs := records(b)
	// Cut anywhere: inside a header, inside the data, at a record's end.
	for i := range 12 {
		n := 24 + rng.IntN(len(b)-24)
		switch i {
		case 0:
			n = offs[5] + 7
		case 1:
			n = offs[2000]
		case 2:
			n = offs[len(offs)-1] + 16
		case 3:
			n = 24
		case 4:
			n = offs[0] + 3
		}
		sameRead(t, write(fmt.Sprintf("cut%d.pcap", i), b[:n]))
	}
	// Damaged records.
	for i := range 40 {
		d := bytes.Clone(b)
		for range 1 + rng.IntN(4) {
			off := offs[rng.IntN(len(offs))]
			switch rng.IntN(7) {
			case 0: // an impossible original length
				binary.LittleEndian.PutUint32(d[off+12:], 2<<20+uint32(rng.IntN(1<<20)))
			case 1: // captured longer than original
				binary.LittleEndian.PutUint32(d[off+12:], binary.LittleEndian.Uint32(d[off+8:])-1)
			case 2: // captured longer than any record
				binary.LittleEndian.PutUint32(d[off+8:], MaxRecordLen+1+uint32(rng.IntN(100)))
			case 3: // an IP total length beyond the frame's original length
				if binary.LittleEndian.Uint32(d[off+8:]) >= 14+20 {
					binary.BigEndian.PutUint16(d[off+16+14+2:], 60000)
				}
			case 4: // time going backwards
				binary.LittleEndian.PutUint32(d[off:], 1000)
			case 5: // a random byte of the frame
				if n := int(binary.LittleEndian.Uint32(d[off+8:])); n > 0 {
					d[off+16+rng.IntN(n)] ^= byte(1 + rng.IntN(255))
				}
			case 6: // µs beyond a second
				binary.LittleEndian.PutUint32(d[off+4:], 3_000_000+uint32(rng.IntN(1<<30)))
			}
		}
		sameRead(t, write(fmt.Sprintf("damaged%d.pcap", i), d))
	}
	// Many IP lengths beyond the frame, and impossible original lengths:
	// the summary warnings, merged with the first ones in frame order.
	d := bytes.Clone(b)
	for k, off := range offs {
		if k%97 == 3 {
			binary.BigEndian.PutUint16(d[off+16+14+2:], 60000)
		}
		if k%89 == 5 || k == 3 {
			binary.LittleEndian.PutUint32(d[off+12:], 3<<20)
		}
	}
	sameRead(t, write("overwire.pcap", d))

	// Records of every length up to MaxRecordLen, empty ones, and runs of
	// tiny ones (more frames than a batch holds in one window).
	var w bytes.Buffer
	w.Write(b[:24])
	binary.LittleEndian.PutUint32(w.Bytes()[16:], MaxRecordLen) // snap length
	frame := b[offs[10]+16 : offs[10]+16+int(binary.LittleEndian.Uint32(b[offs[10]+8:]))]
	hdr := make([]byte, 16)
	add := func(n int) {
		binary.LittleEndian.PutUint32(hdr, 1_700_000_000)
		binary.LittleEndian.PutUint32(hdr[4:], uint32(rng.IntN(1e6)))
		binary.LittleEndian.PutUint32(hdr[8:], uint32(n))
		binary.LittleEndian.PutUint32(hdr[12:], uint32(n+rng.IntN(3)))
		w.Write(hdr)
		for k := 0; k < n; k += len(frame) {
			w.Write(frame[:min(len(frame), n-k)])
		}
	}
	for i := range 400 {
		switch {
		case i%50 == 7:
			add(MaxRecordLen - rng.IntN(32))
		case i%13 == 0:
			add(rng.IntN(readWindow))
		case i%5 == 0:
			for range 5000 {
				add(0)
			}
		default:
			add(len(frame) - rng.IntN(20))
		}
	}
	sameRead(t, write("sizes.pcap", w.Bytes()))
	sameRead(t, write("sizes-cut.pcap", w.Bytes()[:w.Len()-1000]))
}

// TestSplitFileChanged: a file that shrinks after Open ends the same
// split (ErrFileChanged at the same frame).
func TestSplitFileChanged(t *testing.T) {
	var w bytes.Buffer
	if err := pcaptest.WriteBulk(&w, pcaptest.GenOptions{Packets: 20000, Seed: 6}); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{3 * readWindow / 2, 5*readWindow + 100} {
		p := filepath.Join(t.TempDir(), "x.pcap")
		if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		r1, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, int64(size)); err != nil {
			t.Fatal(err)
		}
		want := readNext(r1)
		got := readFrames(t, r2, splitFrames, 3, 2)
		r1.Close()
		r2.Close()
		if !strings.Contains(want.err, "no longer there") {
			t.Fatalf("Next: %q, want ErrFileChanged", want.err)
		}
		compareRead(t, fmt.Sprint("shrunk to ", size), want, got)
	}
}

// TestSplitInterrupt: an interrupted split read ends with the interrupt's
// error, as Next does.
func TestSplitInterrupt(t *testing.T) {
	var w bytes.Buffer
	if err := pcaptest.WriteBulk(&w, pcaptest.GenOptions{Packets: 5000, Seed: 6}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "x.pcap")
	if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	SetInterrupt(ctx)
	defer SetInterrupt(nil)
	r1, _ := Open(p)
	r2, _ := Open(p)
	want := readNext(r1)
	got := readFrames(t, r2, splitFrames, 2, 0)
	r1.Close()
	r2.Close()
	if !strings.Contains(want.err, "canceled") {
		t.Fatalf("Next: %q, want the interrupt", want.err)
	}
	compareRead(t, "interrupted", want, got)
}

// TestSplitConcurrent: batches framed on one goroutine and decoded on two
// (the pattern of tcpanalysis's pipeline) give what Next gives; run with
// -race.
func TestSplitConcurrent(t *testing.T) {
	var w bytes.Buffer
	if err := pcaptest.WriteShort(&w, pcaptest.GenOptions{Packets: 60000, Seed: 8}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "x.pcap")
	if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r1, _ := Open(p)
	want := readNext(r1)
	r1.Close()
	r, _ := Open(p)
	defer r.Close()
	if !r.CanReadFrames() {
		t.Fatal("CanReadFrames false")
	}
	const nb = 3
	free := make(chan *FrameBatch, nb)
	full := make(chan *FrameBatch, nb)
	for range nb {
		free <- newFrameBatch(500)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(full)
		var sent []*FrameBatch
		for {
			var b *FrameBatch
			select {
			case b = <-free:
			default:
				if TryDecodeNewest(sent) {
					continue
				}
				b = <-free
			}
			if len(sent) > 0 && sent[0] == b {
				sent = sent[1:]
			}
			more := r.ReadFrames(b)
			sent = append(sent, b)
			full <- b
			if !more {
				return
			}
		}
	}()
	var got readResult
	for b := range full {
		err := r.Segments(b, func(segs []Segment) {
			for _, s := range segs {
				got.segs = append(got.segs, normSeg(s))
			}
		})
		if err != nil {
			got.err = errString(err)
			break
		}
		free <- b
	}
	wg.Wait()
	got.stats, got.warnings = r.Stats(), r.Warnings()
	compareRead(t, "concurrent", want, got)
}
