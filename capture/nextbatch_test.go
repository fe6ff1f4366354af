//go:build unix

package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// errAfterCtx is a context whose Err turns non-nil at its after-th call.
type errAfterCtx struct {
	context.Context
	calls, after int
}

func (c *errAfterCtx) Err() error {
	if c.calls++; c.calls >= c.after {
		return context.Canceled
	}
	return nil
}

// sentinel is a Segment with every byte set, that Next and NextBatch
// read into: a field one of them writes and the other does not shows.
func sentinel() Segment {
	var s Segment
	s.Time, s.Frame, s.Offset, s.Seq, s.Ack = -7, -7, -7, 7, 7
	s.Flags, s.Window, s.Checksum, s.IPID = 0xffff, 0xffff, 0xffff, 0xffff
	s.ICMP, s.TTL, s.IPv6, s.DF, s.WiFi, s.Retry, s.FineTime, s.RadioSignal = 9, 9, true, true, true, true, true, true
	s.SeqCtl, s.SA, s.TA, s.RA = 0xffff, [6]byte{9, 9, 9, 9, 9, 9}, [6]byte{8, 8, 8, 8, 8, 8}, [6]byte{7, 7, 7, 7, 7, 7}
	s.PayloadLen, s.CapLen, s.WireLen, s.Iface, s.IPLen, s.HdrLen = -7, -7, -7, -7, -7, -7
	s.Opts = Options{MSS: 9, WScale: 9, SACKPerm: true, TS: true, TSval: 9, TSecr: 9, NSACK: 9, Truncated: true, Malformed: true}
	s.ICMPMTU = 9
	return s
}

// readNextRaw reads r with Next into a sentinel segment each time,
// keeping every byte.
func readNextRaw(r *Reader) readResult {
	var res readResult
	for {
		s := sentinel()
		err := r.Next(&s)
		if err != nil {
			res.err = errString(err)
			break
		}
		res.segs = append(res.segs, s)
	}
	res.stats, res.warnings = r.Stats(), r.Warnings()
	return res
}

// readBatchRaw reads r with NextBatch, batches of n sentinel segments.
func readBatchRaw(r *Reader, n int) readResult {
	var res readResult
	segs := make([]Segment, n)
	for {
		for i := range segs {
			segs[i] = sentinel()
		}
		k, err := r.NextBatch(segs)
		res.segs = append(res.segs, segs[:k]...)
		if err != nil {
			res.err = errString(err)
			break
		}
	}
	res.stats, res.warnings = r.Stats(), r.Warnings()
	return res
}

// sameBatch fails t unless NextBatch, in batches of several sizes, with
// and without an interrupt context (never done, and done at its third
// look), gives Next's segments, every byte of them, and its error,
// stats and warnings.
func sameBatch(t *testing.T, path string) {
	t.Helper()
	for _, ctx := range []int{0, 1 << 30, 3} {
		open := func() *Reader {
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if ctx > 0 {
				r.ctx = &errAfterCtx{Context: context.Background(), after: ctx}
			}
			return r
		}
		r := open()
		want := readNextRaw(r)
		r.Close()
		for _, n := range []int{1, 3, 32, 2048} {
			r := open()
			got := readBatchRaw(r, n)
			r.Close()
			name := fmt.Sprintf("%s batch %d ctx %d", filepath.Base(path), n, ctx)
			if len(want.segs) != len(got.segs) {
				t.Fatalf("%s: %d segments, want %d", name, len(got.segs), len(want.segs))
			}
			for i := range want.segs {
				if want.segs[i] != got.segs[i] { // every field (Segment is comparable; reflect.DeepEqual took minutes)
					t.Fatalf("%s: segment %d:\n got %+v\nwant %+v", name, i, got.segs[i], want.segs[i])
				}
			}
			if got.err != want.err || got.stats != want.stats || !reflect.DeepEqual(got.warnings, want.warnings) {
				t.Fatalf("%s: error %q stats %+v warnings %q, want %q %+v %q", name, got.err, got.stats, got.warnings, want.err, want.stats, want.warnings)
			}
		}
	}
}

// readSplitRaw is readFrames with every segment decoded into a sentinel:
// the batches' segments and the consumer's (Reader.Segments decoding a
// batch itself) are set to sentinels before the decoding writes them, and
// again once consumed. A segment is kept whole, but for a stub, which
// normSeg reduces to the fields a stub defines (split reading writes only
// those: otherEthIPv4TCP).
func readSplitRaw(t *testing.T, r *Reader, batchCap, ahead, decode int) readResult {
	t.Helper()
	return readSplit(t, r, batchCap, ahead, decode, true)
}

// sameSplit fails t unless a split read of path (whose common records
// etherRun frames and decodes), in several ways, with and without an
// interrupt context, gives Next's segments, every byte of them but a
// stub's undefined ones, and its error, stats and warnings; without
// OnlyEndpoints, and with the endpoints of the first and the last
// segment Next gives.
func sameSplit(t *testing.T, path string) {
	t.Helper()
	var keys []*[2]netip.AddrPort
	for _, ctx := range []int{0, 3} {
		open := func(only *[2]netip.AddrPort) *Reader {
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if ctx > 0 {
				r.ctx = &errAfterCtx{Context: context.Background(), after: ctx}
			}
			if only != nil {
				r.OnlyEndpoints(only[0], only[1])
			}
			return r
		}
		r := open(nil)
		split := r.CanReadFrames()
		all := readNextRaw(r)
		r.Close()
		if !split {
			return
		}
		if keys == nil {
			keys = append(keys, nil)
			if n := len(all.segs); n > 0 {
				keys = append(keys, &[2]netip.AddrPort{all.segs[0].Src, all.segs[0].Dst}, &[2]netip.AddrPort{all.segs[n-1].Dst, all.segs[n-1].Src})
			}
		}
		for _, only := range keys {
			want := all
			if only != nil {
				r := open(only)
				want = readNextRaw(r)
				r.Close()
				for i, s := range want.segs {
					if !s.Src.IsValid() && !s.Dst.IsValid() && s.ICMP == ICMPNone {
						want.segs[i] = normSeg(s)
					}
				}
			}
			for _, c := range []struct{ cap, ahead, decode int }{{splitFrames, 4, 0}, {splitFrames, 3, 2}, {7, 5, 2}, {100, 1, 1}} {
				r := open(only)
				got := readSplitRaw(t, r, c.cap, c.ahead, c.decode)
				r.Close()
				compareRead(t, fmt.Sprintf("%s split %+v ctx %d only %v", filepath.Base(path), c, ctx, only), want, got)
			}
		}
	}
}

// TestNextBatchSameAsNext: NextBatch (whose common records nextEther
// frames and decodes) and a split read (FrameBatch.decode, likewise)
// give what Next gives on every capture of ../shared and on generated
// captures, whole and damaged in every way the fast path must leave to
// next.
func TestNextBatchSameAsNext(t *testing.T) {
	if root, err := filepath.Abs(filepath.Join("..", "..", "shared")); err == nil {
		if _, err := os.Stat(root); err == nil {
			for _, sub := range []string{"corpus", "cases", "hostile"} {
				filepath.WalkDir(filepath.Join(root, sub), func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return nil
					}
					if r, err := Open(p); err == nil {
						r.Close()
						sameBatch(t, p)
						sameSplit(t, p)
					}
					return nil
				})
			}
		}
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string { return writeTemp(t, dir, name, b) }
	var bulk, short bytes.Buffer
	if err := pcaptest.WriteBulk(&bulk, pcaptest.GenOptions{Packets: 30000, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := pcaptest.WriteShort(&short, pcaptest.GenOptions{Packets: 20000, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	for i, b := range [][]byte{bulk.Bytes(), short.Bytes()} {
		p := write([]string{"bulk.pcap", "short.pcap"}[i], b)
		sameBatch(t, p)
		sameSplit(t, p)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for _, b := range [][]byte{bulk.Bytes(), short.Bytes()} {
		offs := records(b)
		for i := range 12 {
			d := bytes.Clone(b)
			for range 1 + rng.IntN(40) {
				off := offs[rng.IntN(len(offs))]
				capLen := int(binary.LittleEndian.Uint32(d[off+8:]))
				switch rng.IntN(12) {
				case 0: // an impossible original length
					binary.LittleEndian.PutUint32(d[off+12:], 2<<20+uint32(rng.IntN(1<<20)))
				case 1: // captured longer than original
					binary.LittleEndian.PutUint32(d[off+12:], uint32(capLen-1))
				case 2: // an IP total length beyond the frame, or 0, or short
					binary.BigEndian.PutUint16(d[off+16+14+2:], []uint16{60000, 0, 19, 39, uint16(capLen - 14 + 1)}[rng.IntN(5)])
				case 3: // time going backwards, or µs beyond a second
					binary.LittleEndian.PutUint32(d[off:], 1000)
					if rng.IntN(2) == 0 {
						binary.LittleEndian.PutUint32(d[off+4:], 3_000_000)
					}
				case 4: // a fragment, or DF
					d[off+16+14+6] ^= []byte{0x20, 0x40, 0x01}[rng.IntN(3)]
				case 5: // another protocol, IP version or header length
					d[off+16+14+[]int{0, 9}[rng.IntN(2)]] ^= byte(1 + rng.IntN(255))
				case 6: // another EtherType
					d[off+16+12+rng.IntN(2)] ^= byte(1 + rng.IntN(255))
				case 7: // another TCP header length
					d[off+16+34+12] ^= byte(1+rng.IntN(15)) << 4
				case 8: // a random byte of the frame
					d[off+16+rng.IntN(capLen)] ^= byte(1 + rng.IntN(255))
				case 9: // a fine timestamp
					binary.LittleEndian.PutUint32(d[off+4:], uint32(rng.IntN(1e6)))
				case 10: // captured bytes over the snap length
					binary.LittleEndian.PutUint32(d[16:], uint32(capLen-1))
				case 11: // options: timestamps, none, others
					if hl := int(d[off+16+34+12]>>4) * 4; hl == 32 && capLen >= 66 {
						copy(d[off+16+34+20:], [][]byte{{1, 1, 8, 10}, {1, 1, 1, 1}, {2, 4, 5, 180}, {0, 0, 0, 0}}[rng.IntN(4)])
					}
				}
			}
			p := write(fmt.Sprintf("damaged%d.pcap", i), d)
			sameBatch(t, p)
			sameSplit(t, p)
		}
		// Cut anywhere.
		p := write("cut.pcap", b[:24+rng.IntN(len(b)-24)])
		sameBatch(t, p)
		sameSplit(t, p)
	}
}
