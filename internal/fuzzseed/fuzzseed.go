// Package fuzzseed builds the seed inputs shared by the fuzz targets of the
// flow tracker and the analysis, and opens a fuzz input the way tcpviz
// would: plain, gzip, zstd or through a file (the memory-mapped path).
// Test support only.
package fuzzseed

import (
	"bytes"
	"compress/gzip"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// Ways an input is opened, the second fuzz argument.
const (
	Plain uint8 = iota
	Gzip
	Zstd
	File // written to a temporary file and read through capture.Open (its window buffer)
	numWays
)

// Seeds returns small captures: every hostile kind of pcaptest with 16
// segments, a short bulk transfer, a pcapng of one handshake and data, and
// the shared test cases when ../shared is present.
func Seeds() [][]byte {
	var out [][]byte
	for _, k := range pcaptest.Hostiles {
		var b bytes.Buffer
		if pcaptest.WriteHostile(&b, k, 16) == nil {
			out = append(out, b.Bytes())
		}
	}
	var b bytes.Buffer
	if pcaptest.WriteBulk(&b, pcaptest.GenOptions{Packets: 120, Flows: 2, Seed: 3, Snaplen: 96}) == nil {
		out = append(out, b.Bytes())
	}
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:1000"), netip.MustParseAddrPort("10.0.0.2:80"), 7, 9)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{MSS: 1460, SACKPerm: true, TS: true})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{MSS: 1460, SACKPerm: true, TS: true})
	t := pcaptest.GenStart
	segs := c.Handshake(t, time.Millisecond)
	segs = append(segs, c.Data(t.Add(3*time.Millisecond), pcaptest.C2S, 100), c.Ack(t.Add(4*time.Millisecond), pcaptest.S2C, 101, 1000),
		c.Fin(t.Add(5*time.Millisecond), pcaptest.C2S))
	for _, s := range segs {
		ng.Add(s.T, 0, pcaptest.Ethernet(s.IP()))
	}
	out = append(out, ng.Bytes())
	_, file, _, _ := runtime.Caller(0)
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "cases", "*.pcap"))
	for _, p := range m {
		if b, err := os.ReadFile(p); err == nil && len(b) < 8<<10 {
			out = append(out, b)
		}
	}
	return out
}

// Ways lists every way of opening, for seeding.
func Ways() []uint8 { return []uint8{Plain, Gzip, Zstd, File} }

// Open returns a Reader over data opened the given way (taken modulo the
// number of ways). The File way writes a temporary file (not t.TempDir,
// which stalls the fuzzing engine); the returned function closes the Reader
// and removes it.
func Open(data []byte, way uint8) (*capture.Reader, func(), error) {
	switch way % numWays {
	case Gzip:
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	case Zstd:
		var b bytes.Buffer
		zw, _ := zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1))
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	case File:
		f, err := os.CreateTemp("", "tcpviz-fuzz-*.pcap")
		if err != nil {
			return nil, nil, err
		}
		p := f.Name()
		_, err = f.Write(data)
		f.Close()
		if err != nil {
			os.Remove(p)
			return nil, nil, err
		}
		r, err := capture.Open(p)
		if err != nil {
			os.Remove(p)
			return nil, nil, err
		}
		return r, func() { r.Close(); os.Remove(p) }, nil
	}
	r, err := capture.NewReader(bytes.NewReader(data), "fuzz")
	if err != nil {
		return nil, nil, err
	}
	return r, func() {}, nil
}
