package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// minimalPcap returns a pcap of one Ethernet/IPv4/TCP SYN frame.
func minimalPcap() []byte {
	var b bytes.Buffer
	hdr := make([]byte, 24)
	binary.LittleEndian.PutUint32(hdr[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], 65535)
	binary.LittleEndian.PutUint32(hdr[20:], 1)
	b.Write(hdr)
	frame := mustHex("" +
		"000000000002 000000000001 0800" +
		"4500 002c 0001 0000 4006 0000 0a000001 0a000002" +
		"1388 0050 000003e8 00000000 6002 ffff 0000 0000 020405b4")
	rec := make([]byte, 16)
	binary.LittleEndian.PutUint32(rec[0:], 1700000000)
	binary.LittleEndian.PutUint32(rec[8:], uint32(len(frame)))
	binary.LittleEndian.PutUint32(rec[12:], uint32(len(frame)))
	b.Write(rec)
	b.Write(frame)
	return b.Bytes()
}

// FuzzReader feeds arbitrary bytes to the reader and decoder: rejecting a
// file is fine, panicking or producing impossible values is not.
func FuzzReader(f *testing.F) {
	f.Add(minimalPcap())
	if m, err := filepath.Glob("../../shared/cases/*.pcap"); err == nil {
		for _, p := range m {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), "fuzz")
		if err != nil {
			var fe *FrameError
			if !errors.As(err, &fe) {
				t.Fatalf("NewReader error %v is not a *FrameError", err)
			}
			return
		}
		var s Segment
		var segs []Segment
		var end error
		for i := 0; i < 1<<12; i++ {
			end = r.Next(&s)
			if end != nil {
				break
			}
			if s.PayloadLen < 0 || s.PayloadLen > 1<<32 {
				t.Fatalf("frame %d: payload length %d out of range", s.Frame, s.PayloadLen)
			}
			if s.HdrLen < 20 || s.HdrLen > 60 {
				t.Fatalf("frame %d: header length %d", s.Frame, s.HdrLen)
			}
			segs = append(segs, s)
		}
		if len(segs) == 0 || end == nil {
			return
		}
		// Invariant of OnlyEndpoints: the same segments in the same places,
		// those between the first segment's endpoints decoded alike, the
		// others stubs without endpoints; the same stats.
		a, z := segs[0].Src, segs[0].Dst
		r2, err := NewReader(bytes.NewReader(b), "fuzz")
		if err != nil {
			t.Fatalf("second read: %v", err)
		}
		r2.OnlyEndpoints(a, z)
		for i := range segs {
			if err := r2.Next(&s); err != nil {
				t.Fatalf("OnlyEndpoints: segment %d: %v, want frame %d", i, err, segs[i].Frame)
			}
			w := &segs[i]
			switch {
			case s.Frame != w.Frame || s.Time != w.Time:
				t.Fatalf("OnlyEndpoints: segment %d is frame %d, want %d", i, s.Frame, w.Frame)
			case (w.Src == a && w.Dst == z) || (w.Src == z && w.Dst == a):
				if !reflect.DeepEqual(s, *w) {
					t.Fatalf("OnlyEndpoints: frame %d decoded\n%+v\nwant\n%+v", w.Frame, s, *w)
				}
			case w.ICMP != ICMPNone:
				// An ICMP error quoting another 4-tuple: its quote may be a
				// stub; the analysis leaves it out either way.
			case s.Src.IsValid() || s.Dst.IsValid():
				t.Fatalf("OnlyEndpoints: frame %d of %v → %v is not a stub: %v → %v", w.Frame, w.Src, w.Dst, s.Src, s.Dst)
			}
		}
		if err := r2.Next(&s); fmt.Sprint(err) != fmt.Sprint(end) {
			t.Fatalf("OnlyEndpoints: ended with %v, want %v", err, end)
		}
		if r.Stats() != r2.Stats() {
			t.Fatalf("OnlyEndpoints: stats %+v, want %+v", r2.Stats(), r.Stats())
		}
	})
}

// FuzzDecode feeds arbitrary frames to the decoder for every link type.
func FuzzDecode(f *testing.F) {
	f.Add(uint16(1), mustHex("000000000002 000000000001 0800 4500 002c 0001 0000 4006 0000 0a000001 0a000002 1388 0050 000003e8 00000000 6002 ffff 0000 0000 020405b4"))
	f.Add(uint16(127), mustHex("0000 0800 00000000 0800 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 aaaa 0300 0000 0800 4500"))
	f.Fuzz(func(t *testing.T, lt uint16, frame []byte) {
		var s Segment
		d := decoder{s: &s, wireLen: len(frame)}
		if d.decode(int(lt), frame) == vTCP {
			if s.PayloadLen < 0 {
				t.Fatalf("negative payload length %d", s.PayloadLen)
			}
		}
	})
}

// mustHex decodes hex digits, ignoring spaces.
func mustHex(s string) []byte {
	var out []byte
	var hi byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		default:
			continue
		}
		if n%2 == 0 {
			hi = v
		} else {
			out = append(out, hi<<4|v)
		}
		n++
	}
	return out
}
