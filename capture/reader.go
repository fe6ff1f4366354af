package capture

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"

	// klauspost's gzip, unlike compress/gzip, does not allocate Huffman
	// tables for every dynamic deflate block.
	"github.com/klauspost/compress/gzip"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrNotCapture means the input is neither pcap nor pcapng (after
	// gzip/zstd decompression).
	ErrNotCapture = errors.New("not a pcap or pcapng capture")
	// ErrUnsupportedLinkType means no frame of the capture can be decoded
	// because its link type is not one SupportedLink accepts.
	ErrUnsupportedLinkType = errors.New("unsupported link type")
	// ErrRecordTooLong means a record claims more captured bytes than
	// MaxRecordLen; it is never buffered (docs/robustness.md).
	ErrRecordTooLong = errors.New("record longer than the capture allows")
	// ErrFileChanged means the file shrank or changed while it was read
	// (a ring-buffer file being rotated): it ended before its size at open.
	ErrFileChanged = errors.New("file changed while being read (truncated or rotated?)")
)

// MaxRecordLen is the longest record, in captured bytes, a Reader accepts:
// libpcap's MAXIMUM_SNAPLEN (262144). A pcap file header's snap length above
// it is capped to it; a longer record, or a pcapng block longer than it plus
// 64 KiB of options, is an error at that frame, so a forged length never
// makes the Reader allocate more (docs/robustness.md#caps).
const MaxRecordLen = 262144

// maxWireLen is the longest original frame length believed; it matters where
// an IP header's length field is 0 (TSO, GSO and BIG TCP super-segments,
// IPv6 jumbograms) and the packet length comes from the frame: Linux BIG
// TCP builds at most 512 KiB. Longer is forged or corrupt: the frame is then
// read as holding only its captured bytes.
const maxWireLen = 1 << 20

// checkEvery is how many frames a Reader reads between two looks at its
// cancellation context.
const checkEvery = 1024

var (
	interruptMu sync.Mutex
	interrupt   context.Context
)

// SetInterrupt makes every Reader (opened before or after) stop within
// checkEvery frames once ctx is done: Next then returns a *FrameError
// wrapping ctx.Err() (context.Canceled). The command line passes the
// context its SIGINT/SIGTERM handler cancels; nil turns it off. Between
// checks a frame costs one integer comparison.
func SetInterrupt(ctx context.Context) {
	interruptMu.Lock()
	interrupt = ctx
	interruptMu.Unlock()
}

func interruptCtx() context.Context {
	interruptMu.Lock()
	defer interruptMu.Unlock()
	return interrupt
}

// A FrameError reports a problem with one frame of a named capture. Frame is
// 1-based like Wireshark's frame numbers; 0 means the file header.
type FrameError struct {
	File  string
	Frame int64
	Err   error
}

func (e *FrameError) Error() string {
	if e.Frame == 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: frame %d: %v", e.File, e.Frame, e.Err)
}

func (e *FrameError) Unwrap() error { return e.Err }

// Stats counts what a Reader saw. Skipping a frame is normal and never an
// error: MANET captures are mostly routing traffic and 802.11 control frames.
type Stats struct {
	Frames   int64 `json:"frames"`   // frames read
	Segments int64 `json:"segments"` // frames that yielded a TCP segment
	NonIP    int64 `json:"non_ip"`   // frames without IPv4/IPv6 (ARP, unknown EtherTypes, LLC without SNAP, pcapng custom and systemd journal blocks, …)
	NonTCP   int64 `json:"non_tcp"`  // IP packets that are not TCP (UDP routing traffic, ICMP, …)
	// ICMPQuotes counts ICMP errors quoting a TCP segment, returned by Next
	// with Segment.ICMP set (not counted in Segments).
	ICMPQuotes int64 `json:"icmp_quotes"`
	Fragments  int64 `json:"fragments"` // IP fragments: counted, never reassembled or guessed
	Truncated  int64 `json:"truncated"` // frames whose snap length cut into a header before the TCP ports/flags
	BadIP      int64 `json:"bad_ip"`    // IP or TCP headers with impossible lengths
	// WiFiNonData counts 802.11 management, control (ACK, BlockAck) and
	// null-data frames; WiFiProtected counts encrypted data frames, which
	// cannot be decoded.
	WiFiNonData     int64 `json:"wifi_non_data"`
	WiFiProtected   int64 `json:"wifi_protected"`
	UnsupportedLink int64 `json:"unsupported_link"` // frames on an interface whose link type is not supported
	Tunnelled       int64 `json:"tunnelled"`        // TCP segments found inside a tunnel (VXLAN, GRE, IP-in-IP)
	TimeBackwards   int64 `json:"time_backwards"`   // frames whose timestamp is earlier than the previous frame's
	// Filtered counts frames a FrameHook (a capture filter) rejected; they
	// are not counted, numbered or decoded anywhere else.
	Filtered int64 `json:"filtered,omitempty"`
	// First and Last are the capture times of the first and last frame in
	// file order (any protocol); valid iff Frames > 0. Times relative to
	// First are what tshark shows as frame.time_relative.
	First Timestamp `json:"first_ns"` // ns since the epoch
	Last  Timestamp `json:"last_ns"`
	// TimeOutOfRange counts frames skipped because their timestamp lies
	// outside 1970-01-01 … 2262-04-11, the range of int64 nanoseconds.
	TimeOutOfRange int64 `json:"time_out_of_range"`
	// BadWireLen counts frames whose original length is impossible (above
	// 1 MiB and above the captured length): they are read as holding only
	// their captured bytes, which matters where an IP length of 0 (TSO)
	// takes the packet length from the frame.
	BadWireLen int64 `json:"bad_wire_len"`
	// IPLenOverWire counts frames whose IP length field claims more bytes
	// than the frame's original (wire) length: the payload is bounded by
	// the frame.
	IPLenOverWire int64 `json:"ip_len_over_wire"`
	// CapOverWire counts frames whose record gives fewer original (wire)
	// bytes than captured bytes, which no capture can hold: the original
	// length is taken to be the captured length (the captured bytes are in
	// the file; tshark and tcptrace read them too) and reading goes on.
	CapOverWire int64 `json:"cap_over_wire"`
	// OverSnaplen counts pcap records longer than the file's snap length
	// (written by tools that do not truncate, such as dpkt); they are read
	// as tcpdump does, up to MaxRecordLen.
	OverSnaplen int64 `json:"over_snaplen"`
	// UnsupportedEncap counts frames inside a tunnel whose payload type
	// tcpviz does not decode (GRE 0x8200, Aruba 802.11, for instance).
	UnsupportedEncap int64 `json:"unsupported_encap"`
	// SimplePackets counts pcapng Simple Packet Blocks: packets without a
	// timestamp, each given the time of the latest frame before it that
	// has one (before any, of the first after it), and warned about.
	SimplePackets int64 `json:"simple_packets"`
}

// peeker is a reader that can show its next bytes without consuming them:
// a *bufio.Reader, or the window buffer of a file (windowReader).
type peeker interface {
	io.Reader
	Peek(n int) ([]byte, error)
}

// Format is the container format of a capture.
type Format string

// Container formats.
const (
	FormatPcap   Format = "pcap"
	FormatPcapng Format = "pcapng"
)

type source interface {
	ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// Reader reads TCP segments from one capture. It is not safe for concurrent
// use. Create one with Open or NewReader.
type Reader struct {
	codec    string     // "gzip" or "zstd" for a compressed capture, else ""
	end      *streamEnd // the decompressor's end, for a compressed capture
	name     string
	closer   io.Closer
	src      source
	fast     bool        // src is a mappedPcap: data slices point into its window buffer
	mp       *mappedPcap // src when fast: records are read without a CaptureInfo
	ng       *pcapgo.NgReader
	link     int // pcap link type; pcapng looks it up per interface
	format   Format
	unmap    func()
	dec      decoder
	hook     FrameHook
	first    firstFrame // Stats.First, readable from other goroutines
	frame    int64
	last     Timestamp
	stats    Stats
	own      ownSet // frames announcing an address (LinkOwn)
	warnings []string
	done     bool
	ctx      context.Context
	snaplen  int              // pcap header snap length (0 for pcapng)
	encap    map[uint16]int64 // frames with an unsupported GRE payload, by protocol type
	firstTS  int64            // first frame with an out-of-range timestamp
	// keepNumbers: frames the hook rejects keep their frame number and
	// can be the time origin (SetFileFilter); firstSeen: First is set.
	keepNumbers, firstSeen bool
	// etherWait is how many records NextBatch leaves to next before it
	// tries nextEther again, and etherBackoff the next wait after a try
	// that takes nothing (doubling to 64, back to 1 once a try takes a
	// record): a capture whose records all fail nextEther's checks pays
	// for a failed try once every 64 records, not on every one.
	etherWait, etherBackoff int
	firstBW                 int64 // first frame with an impossible wire length
	firstOW                 int64 // first frame whose IP length exceeds its wire length
	// firstCO: the first frame with more captured than original bytes,
	// and its two lengths (Stats.CapOverWire).
	firstCO       int64
	coCap, coWire int
	// fine: some timestamp of the capture is off a multiple of fineTick
	// (Segment.FineTime), from the pre-scan or from a frame read so far.
	fine bool
	// node: what a radiotap capture shows of the node it was taken on
	// (Node), from Open's scan.
	node Node
	// pcapng (ngsource.go): guard checks the blocks pcapgo reads; ngCur
	// is the record read last; ngPend the records read ahead to give
	// leading Simple Packet Blocks a time (their data copied), from ngAt
	// on, and ngPendErr the error that ended that read; ngLast the time
	// of the latest record that has one (ngHaveTime). spbFirst is the
	// first Simple Packet Block's frame; spbAhead how many were given
	// the time of a record after them, spbEpoch how many time 0.
	guard                        *ngGuard
	ngCur                        ngRecord
	ngPend                       []ngRecord
	ngAt                         int
	ngPendErr                    error
	ngLast                       Timestamp
	ngHaveTime                   bool
	spbFirst, spbAhead, spbEpoch int64
	// A split read (ReadFrames, Segments): sr is the reading goroutine's
	// state, split the consuming goroutine's.
	sr    *splitReader
	split *splitConsumer
}

// Open opens the capture at path ("-" reads standard input). gzip and zstd
// compression are detected from the content, not the file name.
//
// Errors are *FrameError values naming the file (Frame 0): ErrNotCapture, a
// cut file header, or ErrUnsupportedLinkType for a pcap whose link type
// tcpviz cannot decode.
func Open(path string) (*Reader, error) {
	if path == "-" {
		r, err := NewReader(os.Stdin, "stdin")
		if err == nil && (r.link == LinkRadiotap || r.link == LinkIEEE80211 || r.link == LinkPrism || r.link == LinkAVS) {
			r.node.Why = "standard input cannot be read twice, so its node was not learnt before the analysis; give the file's path"
		}
		return r, err
	}
	r, err := openFile(path)
	if err != nil {
		return nil, err
	}
	// Only a regular file can be read twice: a named pipe or /dev/fd/N
	// (bash's <(zcat f)) would lose to the pre-scan what it reads.
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		r.fine = prescanFine(path)
		if r.link == LinkRadiotap || r.link == LinkIEEE80211 || r.link == LinkPrism || r.link == LinkAVS || r.ng != nil {
			r.node = scanNode(path)
		}
	}
	return r, nil
}

// fineTick defines Segment.FineTime: a capture resolves time finer than
// fineTick when some frame's stamp is off a multiple of it.
const fineTick = 10 * time.Microsecond

// PrescanFrames is how many records Open reads ahead of the analysis to
// decide Segment.FineTime for a file (docs/metrics.md#folded-duplicates).
const PrescanFrames = 4096

// prescanFine reads the timestamps of the first PrescanFrames records of the
// regular file at path (a second, independent reader) and reports whether one of
// them is off a multiple of fineTick. pcapng stamps are read with their
// interface's if_tsresol, as Next reads them. A capture that cannot be read
// reports false: Next then still learns the resolution as it reads.
func prescanFine(path string) bool {
	// A reader of its own, through a small buffer (the main reader's
	// window buffer is not shared).
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	r, err := NewReader(f, path)
	if err != nil {
		return false
	}
	defer r.Close()
	if r.done || r.src == nil {
		return false
	}
	for range PrescanFrames {
		var ts Timestamp
		if r.ng != nil {
			var p ngRecord
			if err := r.ngReadOne(&p); err != nil {
				return false
			}
			if p.spb || !p.inRange {
				continue // a Simple Packet Block has no time of its own
			}
			ts = p.ts
		} else {
			_, ci, err := r.src.ZeroCopyReadPacketData()
			if err != nil {
				return false
			}
			if !timeInRange(ci.Timestamp) {
				continue
			}
			ts = Timestamp(ci.Timestamp.UnixNano())
		}
		if int64(ts)%int64(fineTick) != 0 {
			return true
		}
	}
	return false
}

// names maps a file path to the name Readers give it (NameFile).
var names sync.Map

// NameFile makes every Reader that Open opens on the file at path name
// the capture name instead of path — in Reader.Name (Report.File), every
// *FrameError and every warning — until undo is called. Standard input
// spooled to a temporary file (query.Spool) is so named "stdin", as
// Open("-") names it: no message names the temporary file.
func NameFile(path, name string) (undo func()) {
	names.Store(path, name)
	return func() { names.CompareAndDelete(path, name) }
}

// FileName is the name Readers give the file at path: the name NameFile
// set, else path.
func FileName(path string) string {
	if n, ok := names.Load(path); ok {
		return n.(string)
	}
	return path
}

// openFile is Open for a path other than "-", without the pre-scan.
func openFile(path string) (*Reader, error) {
	name := FileName(path)
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if name != path && errors.As(err, &pe) {
			// The file is known by another name: the error names it
			// (it still wraps the system's error: fs.ErrNotExist …).
			return nil, &FrameError{File: name, Err: pe.Err}
		}
		return nil, err
	}
	var in io.Reader = f
	mr, unmap := mapFile(f)
	if mr != nil {
		in = mr
	}
	r, err := NewReader(in, name)
	if err != nil {
		if unmap != nil {
			unmap()
		}
		f.Close()
		return nil, err
	}
	r.closer = f
	r.unmap = unmap
	return r, nil
}

// NewReader reads a capture from r; name is used in errors and warnings.
// See Open for the errors returned.
func NewReader(r io.Reader, name string) (*Reader, error) {
	fail := func(err error) (*Reader, error) { return nil, &FrameError{File: name, Err: err} }
	// A mapped file is read in place; anything else through a buffer.
	var br peeker
	if w, ok := r.(peeker); ok {
		br = w
	} else {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	magic, err := br.Peek(4)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fail(fmt.Errorf("%w: file is empty or shorter than a capture header", ErrNotCapture))
		}
		return fail(err)
	}
	var in io.Reader = br
	codec := "" // the compression, named in a cut stream's warning
	var end *streamEnd
	switch {
	case magic[0] == 0x1f && magic[1] == 0x8b:
		codec = "gzip"
		gz, err := gzip.NewReader(br)
		if err != nil {
			return fail(fmt.Errorf("gzip: %w", err))
		}
		end = &streamEnd{r: gz}
		in = bufio.NewReaderSize(end, 1<<16)
	case binary.LittleEndian.Uint32(magic) == 0xfd2fb528,
		binary.LittleEndian.Uint32(magic)&0xfffffff0 == 0x184d2a50: // skippable frame first (pzstd)
		codec = "zstd"
		zr, err := newZstdStream(br)
		if err != nil {
			return fail(fmt.Errorf("zstd: %w", err))
		}
		end = &streamEnd{r: zr}
		in = bufio.NewReaderSize(end, 1<<16)
	}
	rd := &Reader{name: name, ctx: interruptCtx(), codec: codec, end: end}
	bin, ok := in.(peeker)
	if !ok {
		bin = bufio.NewReaderSize(in, 1<<16)
	}
	m, err := bin.Peek(4)
	if err != nil {
		if err != io.EOF { // a damaged gzip or zstd stream
			return fail(fmt.Errorf("decompress: %w", err))
		}
		return fail(fmt.Errorf("%w: too short for a capture header", ErrNotCapture))
	}
	switch binary.LittleEndian.Uint32(m) {
	case 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1:
		if fp, ok, err := fastPcap(bin); ok {
			// A plain file: records read in place from the window buffer.
			if err != nil {
				return fail(fmt.Errorf("pcap header: %w", cutErr(err)))
			}
			rd.src, rd.link, rd.format, rd.fast, rd.mp = fp, fp.link, FormatPcap, true, fp
			rd.snaplen = int(fp.snaplen)
			fp.setSnaplen(uint32(min(rd.snaplen, MaxRecordLen)))
			if !SupportedLink(rd.link) {
				return fail(fmt.Errorf("%w %d (pcap header)", ErrUnsupportedLinkType, rd.link))
			}
			break
		}
		sp, err := newStreamPcap(bin)
		if err != nil {
			return fail(fmt.Errorf("pcap header: %w", cutErr(err)))
		}
		rd.src, rd.link, rd.format = sp, sp.link, FormatPcap
		rd.snaplen = int(sp.snaplen)
		// Records up to max(snaplen, 256 KiB) are taken: capping the
		// snap length bounds every record to MaxRecordLen.
		sp.setSnaplen(uint32(min(rd.snaplen, MaxRecordLen)))
		if !SupportedLink(rd.link) {
			return fail(fmt.Errorf("%w %d (pcap header)", ErrUnsupportedLinkType, rd.link))
		}
	case 0x0a0d0d0a:
		guard := newNgGuard(bin, name, func(w string) { rd.warnings = append(rd.warnings, w) })
		rd.guard = guard
		nr, err := pcapgo.NewNgReader(guard, pcapgo.NgReaderOptions{WantMixedLinkType: true})
		if err != nil && guard.fatal != nil {
			return fail(guard.fatal)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				// A section header with no interface: an empty capture.
				rd.done = true
				rd.format = FormatPcapng
				return rd, nil
			}
			return fail(fmt.Errorf("pcapng header: %w", cutErr(err)))
		}
		rd.src, rd.ng, rd.format = nr, nr, FormatPcapng
	default:
		return fail(fmt.Errorf("%w (magic %02x %02x %02x %02x)", ErrNotCapture, m[0], m[1], m[2], m[3]))
	}
	return rd, nil
}

func cutErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("file ends inside the header")
	}
	return err
}

// Name returns the name the Reader was opened with.
func (r *Reader) Name() string { return r.name }

// OnlyEndpoints limits decoding to the TCP segments between a and b (either
// direction), for a pass over one connection's 4-tuple: a segment between
// other endpoints is decoded up to its ports only and still returned, in
// its place, as a stub whose Src and Dst are the zero netip.AddrPort and
// whose fields after them (Seq, Ack, Flags, Opts …) are not set; Frame,
// Time, Iface, CapLen, WireLen and FineTime are. Stats count stubs as
// segments, as they would count the decoded ones, and ICMP errors are
// decoded whole. Call it before the first Next, NextBatch or ReadFrames.
// Used by tcpanalysis.Options.OnlyKey.
func (r *Reader) OnlyEndpoints(a, b netip.AddrPort) { r.dec.only = &[2]netip.AddrPort{a, b} }

// Format returns the container format.
func (r *Reader) Format() Format { return r.format }

// Stats returns what the Reader has counted so far.
func (r *Reader) Stats() Stats { return r.stats }

// Warnings returns the problems found so far that did not stop reading,
// each naming the file and frame (a capture cut mid-packet, a corrupt record
// after which nothing more could be read).
func (r *Reader) Warnings() []string { return r.warnings }

// Close closes the file Open opened.
func (r *Reader) Close() error {
	if r.unmap != nil {
		r.unmap()
		r.unmap = nil
	}
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Next fills s with the next TCP segment and returns nil, or returns io.EOF
// at the end of the capture. A capture cut mid-record, or damaged after its
// first frame, ends with io.EOF and a warning (see Warnings); damage in the
// first frame, or a pcap whose frames all have an unsupported link type, is a
// *FrameError.
func (r *Reader) Next(s *Segment) (err error) {
	return r.next(s)
}

// NextBatch fills segs[:n] with the next segments, as n calls of Next
// would, and returns n and the error that stopped it (io.EOF at the end of
// the capture, see Next) or nil when segs is full. It costs less per
// segment than Next.
func (r *Reader) NextBatch(segs []Segment) (n int, err error) {
	// A mapped Ethernet pcap read past its first frame, without a hook
	// or OnlyEndpoints: nextEther frames and decodes the common records,
	// next the others.
	eth := r.mp != nil && r.link == LinkEthernet && r.hook == nil && r.dec.only == nil
	fast := eth
	for n < len(segs) {
		if fast && r.etherWait == 0 && !r.done && r.stats.Frames > 0 && r.firstSeen {
			k := r.nextEther(segs[n:])
			if n += k; n == len(segs) {
				break
			}
			if k > 0 {
				r.etherBackoff = 1
			} else {
				b := max(r.etherBackoff, 1)
				r.etherWait, r.etherBackoff = b, min(2*b, 64)
			}
		} else if r.etherWait > 0 {
			r.etherWait--
		}
		if err = r.next(&segs[n]); err != nil {
			return n, err
		}
		n++
		// nextEther is tried again after a segment it could have made
		// (Ethernet, then a 20-byte IPv4 header: more are likely to
		// follow); after others (IPv6, VLAN tags, tunnels), whose
		// records would fail its checks, only in the next call.
		fast = eth && r.dec.off == 14+20 && r.dec.depth == 0
	}
	return n, nil
}

func (r *Reader) next(s *Segment) error {
	if r.done {
		return io.EOF
	}
	r.dec.s = s
	for {
		if r.ctx != nil && r.frame%checkEvery == 0 && r.ctx.Err() != nil {
			r.done = true
			return &FrameError{File: r.name, Frame: r.frame + 1, Err: r.ctx.Err()}
		}
		var (
			data []byte
			ci   gopacket.CaptureInfo
			err  error
			ts   Timestamp
			// inRange: the time fits int64 nanoseconds (timeInRange)
			inRange bool
			off     int64     // the record's file offset (Segment.Offset), when mapped
			ngp     *ngRecord // the record, for pcapng
		)
		if r.mp != nil {
			// A mapped pcap: the time is taken from the record as
			// integers, and a CaptureInfo is built only for a hook or a
			// warning (time.Time costs more than the rest of framing).
			var sec, nsec int64
			off = r.mp.offset()
			data, sec, nsec, ci.CaptureLength, ci.Length, err = r.mp.record()
			if nsec >= 1e9 { // a corrupt record: normalised as time.Unix does
				sec, nsec = sec+nsec/1e9, nsec%1e9
			}
			inRange = sec >= 0 && sec < math.MaxInt64/1_000_000_000
			if err == nil && (r.hook != nil || !inRange) {
				ci.Timestamp = time.Unix(sec, nsec).UTC()
			}
			ts = Timestamp(sec*1e9 + nsec)
		} else if r.ng != nil {
			// pcapng: link type and time per interface, Simple Packet
			// Blocks given a time (ngNext).
			if ngp, err = r.ngNext(); err == nil {
				data, ci, ts, inRange = ngp.data, ngp.ci, ngp.ts, ngp.inRange
				r.countRecords(ngp.pre)
				if ngp.spb {
					r.stats.SimplePackets++
					if r.spbFirst == 0 {
						r.spbFirst = r.frame + 1
					}
					if r.hook != nil {
						ci.Timestamp = ts.Time()
					}
				}
			}
		} else {
			data, ci, err = r.src.ZeroCopyReadPacketData()
			inRange = timeInRange(ci.Timestamp)
		}
		if err != nil {
			if err == io.EOF && ci.CaptureLength > 0 {
				// pcapgo read a record header but none of its data.
				err = io.ErrUnexpectedEOF
			}
			return r.readErr(err)
		}
		if ci.CaptureLength > MaxRecordLen {
			r.frame++
			r.stats.Frames++
			return r.readErr(recordTooLong(ci.CaptureLength))
		}
		if r.snaplen > 0 && ci.CaptureLength > r.snaplen {
			r.stats.OverSnaplen++
		}
		if !inRange {
			r.frame++
			r.stats.Frames++
			r.stats.TimeOutOfRange++
			if r.firstTS == 0 {
				r.firstTS = r.frame
				r.warnings = append(r.warnings, outOfRange(r.name, r.frame, ci.Timestamp))
			}
			continue
		}
		lt := r.link
		if ngp != nil {
			lt = ngp.lt
		} else if r.mp == nil {
			ts = Timestamp(ci.Timestamp.UnixNano())
		}
		if r.hook != nil && !r.hook(lt, data, ts, ci) {
			r.stats.Filtered++
			// A frame the filter drops still tells who owns an address
			// (LinkOwn: evidence about the hosts, not the traffic).
			r.own.frame(lt, data)
			if r.keepNumbers {
				r.frame++
				if !r.firstSeen {
					r.stats.First, r.firstSeen = ts, true
					r.first.set(ts)
				}
			}
			continue
		}
		r.countFrame(ts)
		if r.ng != nil && !SupportedLink(lt) {
			r.stats.UnsupportedLink++
			continue
		}
		if ci.Length < ci.CaptureLength {
			r.capOverWire(ci.CaptureLength, ci.Length)
			ci.Length = ci.CaptureLength
		} else if ci.Length > maxWireLen {
			r.stats.BadWireLen++
			if r.firstBW == 0 {
				r.firstBW = r.frame
				r.warnings = append(r.warnings, fmt.Sprintf("%s: frame %d: original length %d is impossible (captured %d); the frame is read as holding its captured bytes only", r.name, r.frame, ci.Length, ci.CaptureLength))
			}
			ci.Length = ci.CaptureLength
		}
		r.dec.wireLen = ci.Length
		v := r.dec.decode(lt, data)
		if r.dec.overWire && v == vTCP {
			r.stats.IPLenOverWire++
			if r.firstOW == 0 {
				r.firstOW = r.frame
				r.warnings = append(r.warnings, fmt.Sprintf("%s: frame %d: the IP length field claims more bytes than the frame's original length %d; payload bounded by the frame", r.name, r.frame, ci.Length))
			}
		}
		s.FineTime = r.fine
		if v == vICMP {
			r.stats.ICMPQuotes++
			s.Frame, s.Offset = r.frame, off
			s.Time = ts
			s.Iface = ci.InterfaceIndex
			s.CapLen = ci.CaptureLength
			s.WireLen = ci.Length
			return nil
		}
		if v != vTCP {
			r.count(v)
			if v == vNonIP || v == vNonTCP {
				r.own.frame(lt, data)
			}
			continue
		}
		if r.dec.depth > 0 {
			r.stats.Tunnelled++
		}
		r.stats.Segments++
		s.Frame, s.Offset = r.frame, off
		s.Time = ts
		s.Iface = ci.InterfaceIndex
		s.CapLen = ci.CaptureLength
		s.WireLen = ci.Length
		return nil
	}
}

// recordTooLong is the error of a record of n captured bytes, over
// MaxRecordLen (Reader.next and split reading).
func recordTooLong(n int) error {
	return fmt.Errorf("%w: %d captured bytes, at most %d", ErrRecordTooLong, n, MaxRecordLen)
}

// boundWire is the original length a frame of capLen captured bytes is
// read with when its record says wireLen (every reading path applies it:
// Reader.next, split reading, ReadIndexed): wireLen, unless it is below
// capLen — the captured bytes are in the file and a frame never holds more
// than the wire carried, so the original length is the one that is wrong
// and capLen is taken (Stats.CapOverWire) — or impossible, above
// maxWireLen and capLen (Stats.BadWireLen: read as holding its captured
// bytes only).
func boundWire(capLen, wireLen int) int {
	if wireLen < capLen || wireLen > max(maxWireLen, capLen) {
		return capLen
	}
	return wireLen
}

// capOverWire counts the current frame (r.frame) as one whose record gives
// capLen captured bytes but only wireLen original bytes.
func (r *Reader) capOverWire(capLen, wireLen int) {
	r.stats.CapOverWire++
	if r.firstCO == 0 {
		r.firstCO, r.coCap, r.coWire = r.frame, capLen, wireLen
	}
}

// outOfRange is the warning of the first frame whose time t is outside
// what a Timestamp holds.
func outOfRange(name string, frame int64, t time.Time) string {
	return fmt.Sprintf("%s: frame %d: timestamp %s is outside the range tcpviz can represent (1970-01-01 00:00:00 to 2262-04-11 23:47:15 UTC); frame skipped", name, frame, t.UTC().Format("2006-01-02 15:04:05"))
}

// countFrame does the bookkeeping of a frame kept at time ts, in file
// order (Reader.next and the split reading of split_unix.go): its number,
// the frame count, the first and last times, time going backwards, and
// the fine-resolution flag. It reports whether ts is the first timestamp
// off a multiple of fineTick.
func (r *Reader) countFrame(ts Timestamp) (fineNow bool) {
	r.frame++
	r.stats.Frames++
	if !r.firstSeen {
		r.stats.First, r.firstSeen = ts, true
		r.first.set(ts)
	} else if ts < r.last && r.stats.Frames > 1 {
		r.stats.TimeBackwards++
	}
	r.last = ts
	r.stats.Last = ts
	if !r.fine && int64(ts)%int64(fineTick) != 0 {
		r.fine = true
		return true
	}
	return false
}

func (r *Reader) count(v verdict) {
	st := &r.stats
	switch v {
	case vUnsupportedEncap:
		st.UnsupportedEncap++
		if r.encap == nil {
			r.encap = make(map[uint16]int64)
		}
		r.encap[r.dec.encap]++
	case vNonIP:
		st.NonIP++
	case vNonTCP, vTunnelTooDeep:
		st.NonTCP++
	case vFragment:
		st.Fragments++
	case vTruncated:
		st.Truncated++
	case vProtected:
		st.WiFiProtected++
	case vNonData:
		st.WiFiNonData++
	case vBadIP:
		st.BadIP++
	}
}

// ifaceInfo returns the link type of pcapng interface i (-1 if there is
// none) and, if its if_tsresol is 2^-n with 10 ≤ n ≤ 29, n for binaryTime.
// It asks the NgReader for every frame: a new section header block (cat or
// mergecap -a output) redefines the interfaces under the same numbers.
func (r *Reader) ifaceInfo(i int) (lt int, bin uint8) {
	if i < 0 || i >= r.ng.NInterfaces() {
		return -1, 0
	}
	intf, err := r.ng.Interface(i)
	if err != nil {
		return -1, 0
	}
	if res := intf.TimestampResolution; res.Binary() && res.Exponent() >= 10 && res.Exponent() <= 29 {
		bin = res.Exponent()
	}
	return int(intf.LinkType), bin
}

// binaryTime corrects the time t of a pcapng frame whose interface has an
// if_tsresol of 2^-n, 10 ≤ n ≤ 29. pcapgo scales the fraction of a second,
// in ticks, by the truncated quotient 1e9/2^n (953 ns for 2^-20 instead of
// 953.67…), so the fraction comes out up to 46% short. Dividing by that
// quotient recovers the ticks exactly; they are then scaled exactly
// (truncating to the nanosecond, as for 10^-n resolutions finer than 10^-9).
// For n ≥ 30 pcapgo's fraction can exceed a second and cannot be undone.
func binaryTime(t Timestamp, n uint8) Timestamp {
	sec, frac := int64(t)/1e9, int64(t)%1e9
	if frac < 0 {
		sec, frac = sec-1, frac+1e9
	}
	ticks := frac / (1e9 >> n)
	return Timestamp(sec*1e9 + ticks*1e9>>n)
}

// streamEnd reads a decompressor and notes whether its stream ended
// whole (io.EOF: the format's own end, gzip's trailer or zstd's last
// frame) rather than cut (io.ErrUnexpectedEOF), so that a capture cut
// mid-record says which was cut.
type streamEnd struct {
	r     io.Reader
	whole bool
}

func (s *streamEnd) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		s.whole = true
	}
	return n, err
}

// readErr turns a read error at the next frame into io.EOF (clean end, or a
// cut or damaged capture with frames already read, plus a warning) or a
// *FrameError.
func (r *Reader) readErr(err error) error {
	r.done = true
	if r.guard != nil {
		r.countRecords(r.guard.trailing())
	}
	r.summarise()
	if errors.Is(err, ErrRecordTooLong) {
		// The record is frame r.frame (counted): an error if it is the
		// first, else the frames before it are analysed, as for a pcap
		// record over the cap (docs/robustness.md#caps).
		if r.frame <= 1 {
			return &FrameError{File: r.name, Frame: r.frame, Err: err}
		}
		r.warnings = append(r.warnings, fmt.Sprintf("%s: frame %d: %v; analysed the %d frames before it", r.name, r.frame, err, r.frame-1))
		return io.EOF
	}
	if errors.Is(err, ErrFileChanged) {
		return &FrameError{File: r.name, Frame: r.frame + 1, Err: err}
	}
	if err == io.EOF {
		if r.ng != nil && r.stats.Frames > 0 && r.stats.Segments == 0 && r.stats.UnsupportedLink == r.stats.Frames {
			return &FrameError{File: r.name, Frame: 1, Err: fmt.Errorf("%w on every interface", ErrUnsupportedLinkType)}
		}
		return io.EOF
	}
	next := r.frame + 1
	var be *ngBlockError
	if errors.As(err, &be) {
		// A pcapng block that stops the reading (not a cut): it is not
		// a frame.
		if r.frame == 0 {
			return &FrameError{File: r.name, Err: fmt.Errorf("%w; nothing before it to analyse", err)}
		}
		r.warnings = append(r.warnings, fmt.Sprintf("%s: after frame %d: %v; reading stopped there: analysed the %d frames before it", r.name, r.frame, err, r.frame))
		return io.EOF
	}
	if errors.Is(err, io.ErrUnexpectedEOF) && r.frame == 0 {
		return &FrameError{File: r.name, Frame: 1, Err: errors.New("capture cut inside the first frame: nothing to analyse")}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		cut := "capture cut mid-record"
		switch {
		case r.codec != "" && r.end != nil && r.end.whole:
			// The stream ended where its format says it does: the
			// capture was cut before it was compressed.
			cut = "capture cut mid-record (the " + r.codec + " stream itself is whole: the capture was cut before it was compressed)"
		case r.codec != "":
			// The decompressor ran out: the compressed file was cut
			// (a copy or download not finished), not the capture.
			cut = "the " + r.codec + " stream ends early (the compressed file is cut), mid-record"
		}
		r.warnings = append(r.warnings, fmt.Sprintf("%s: frame %d: %s; analysed the %d frames before it", r.name, next, cut, r.frame))
		return io.EOF
	}
	if r.frame == 0 {
		return &FrameError{File: r.name, Frame: next, Err: err}
	}
	r.warnings = append(r.warnings, fmt.Sprintf("%s: frame %d: %v; analysed the %d frames before it", r.name, next, err, r.frame))
	return io.EOF
}

// timeInRange reports whether t fits int64 nanoseconds since the epoch
// without going before it: 1970-01-01 to 2262-04-11. Differences of two
// such times never overflow.
func timeInRange(t time.Time) bool {
	sec := t.Unix()
	return sec >= 0 && sec < math.MaxInt64/1_000_000_000
}

// summarise adds, once at the end, the warnings that count frames instead
// of repeating one line per frame.
func (r *Reader) summarise() {
	if n := r.stats.TimeOutOfRange; n > 1 {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d frames skipped for a timestamp out of range (the first is frame %d)", r.name, n, r.firstTS))
	}
	if n := r.stats.BadWireLen; n > 1 {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d frames with an impossible original length (the first is frame %d)", r.name, n, r.firstBW))
	}
	if w := r.spbWarning(); w != "" {
		r.warnings = append(r.warnings, w)
	}
	switch n := r.stats.CapOverWire; {
	case n == 1:
		r.warnings = append(r.warnings, fmt.Sprintf("%s: frame %d: its record gives %d captured bytes but an original length of %d; read with the captured length as its original length (the captured bytes are in the file, and a frame cannot hold more than the wire carried)", r.name, r.firstCO, r.coCap, r.coWire))
	case n > 1:
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d frames whose record gives more captured bytes than its original length (the first is frame %d: %d > %d); each read with its captured length as its original length (the captured bytes are in the file, and a frame cannot hold more than the wire carried)", r.name, n, r.firstCO, r.coCap, r.coWire))
	}
	if n := r.stats.IPLenOverWire; n > 1 {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d frames whose IP length exceeds the frame (the first is frame %d)", r.name, n, r.firstOW))
	}
	if len(r.encap) > 0 {
		types := make([]uint16, 0, len(r.encap))
		for k := range r.encap {
			types = append(types, k)
		}
		slices.Sort(types)
		parts := make([]string, len(types))
		for i, k := range types {
			parts[i] = fmt.Sprintf("%d frames in GRE 0x%04x", r.encap[k], k)
		}
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %s not decoded (unsupported tunnel payload)", r.name, strings.Join(parts, ", ")))
	}
}
