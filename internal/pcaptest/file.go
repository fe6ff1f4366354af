package pcaptest

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// Link type numbers from https://www.tcpdump.org/linktypes.html, as the
// uint32 that Options.LinkType and File.AddInterface take.
const (
	LinkNull      = uint32(layers.LinkTypeNull)           // 0: 4-byte address family in the capturing host's byte order
	LinkEthernet  = uint32(layers.LinkTypeEthernet)       // 1
	LinkPPP       = uint32(layers.LinkTypePPP)            // 9: here a bare 2-byte protocol, as ns-3 writes it
	LinkRaw       = uint32(layers.LinkTypeRaw)            // 101: IPv4 or IPv6, chosen by the version nibble
	LinkIEEE80211 = uint32(layers.LinkTypeIEEE802_11)     // 105
	LinkLinuxSLL  = uint32(layers.LinkTypeLinuxSLL)       // 113
	LinkPrism     = uint32(layers.LinkTypePrismHeader)    // 119
	LinkRadiotap  = uint32(layers.LinkTypeIEEE80211Radio) // 127
	LinkIPv4      = uint32(layers.LinkTypeIPv4)           // 228
	LinkIPv6      = uint32(layers.LinkTypeIPv6)           // 229
	LinkLinuxSLL2 = uint32(layers.LinkTypeLinuxSLL2)      // 276
)

// DefaultSnaplen is the snap length, in bytes, used when Options.Snaplen or
// the snaplen argument of AddInterface is 0 (tcpdump's default).
const DefaultSnaplen = 262144

// NoSnaplen, passed as the snaplen of AddInterface, writes a pcapng snap
// length of 0, which the pcapng specification defines as "no limit".
const NoSnaplen = -1

// Format selects the capture file format.
type Format int

const (
	// PcapMicro is classic pcap with magic 0xa1b2c3d4: microsecond timestamps.
	PcapMicro Format = iota
	// PcapNano is classic pcap with magic 0xa1b23c4d: nanosecond timestamps.
	PcapNano
	// Pcapng is pcapng with one Section Header Block.
	Pcapng
)

// Options describes a capture file. The zero value is a little-endian
// microsecond pcap of link type 0 (LINKTYPE_NULL) with DefaultSnaplen.
type Options struct {
	Format Format
	// BigEndian writes all headers big-endian; the default is little-endian.
	BigEndian bool
	// LinkType is the link type of a pcap file. For pcapng it is the link type
	// of the interface that Add creates if AddInterface was never called.
	// 0 is LINKTYPE_NULL, not "default": use LinkEthernet for Ethernet.
	LinkType uint32
	// Snaplen is the snap length in bytes; 0 means DefaultSnaplen and a
	// negative value panics. A frame
	// longer than Snaplen is written with caplen = Snaplen and origlen = its
	// full length.
	Snaplen int
}

// File is a capture file being built in memory. Add frames with Add, then
// take the bytes with Bytes or WriteFile. The zero File is not usable; call New.
type File struct {
	enc     encoder
	buf     []byte
	packets int
}

// ngIface is one pcapng interface as the encoder needs it.
type ngIface struct {
	snaplen  int    // bytes; 0 means no limit
	tsBinary bool   // if_tsresol is 2^-exp rather than 10^-exp
	tsExp    uint8  // resolution exponent
	tsOffset int64  // seconds subtracted before encoding (if_tsoffset)
	units    uint64 // 10^exp or 2^exp ticks per second
}

// encoder appends pcap/pcapng headers and records to a byte slice. It is
// shared by File and the streaming benchmark writers.
type encoder struct {
	opts   Options
	order  binary.AppendByteOrder
	ifaces []ngIface
}

func newEncoder(opts Options) encoder {
	if opts.Snaplen < 0 {
		panic(fmt.Sprintf("pcaptest: negative snaplen %d", opts.Snaplen))
	}
	if opts.Snaplen == 0 {
		opts.Snaplen = DefaultSnaplen
	}
	e := encoder{opts: opts, order: binary.LittleEndian}
	if opts.BigEndian {
		e.order = binary.BigEndian
	}
	return e
}

// New starts a capture file: it writes the pcap file header or the pcapng
// Section Header Block.
func New(opts Options) *File {
	f := &File{enc: newEncoder(opts)}
	f.buf = f.enc.appendFileHeader(f.buf)
	return f
}

// AddInterface appends a pcapng Interface Description Block and returns its
// interface id (0, 1, ...), to pass to Add.
//
// tsresol is the raw if_tsresol byte (option 9): n means 10^-n seconds,
// 0x80|n means 2^-n seconds; 0 omits the option, which means 10^-6.
// tsoffsetSec is if_tsoffset (option 14) in seconds, subtracted from every
// timestamp before it is encoded; 0 omits the option. snaplen is in bytes:
// 0 means DefaultSnaplen and NoSnaplen writes 0 ("no limit").
// AddInterface panics for pcap files.
func (f *File) AddInterface(linkType uint32, tsresol byte, tsoffsetSec int64, snaplen int) int {
	if f.enc.opts.Format != Pcapng {
		panic("pcaptest: AddInterface on a pcap file")
	}
	f.buf = f.enc.appendIDB(f.buf, linkType, tsresol, tsoffsetSec, snaplen)
	return len(f.enc.ifaces) - 1
}

// Add appends one frame captured at ts. For pcapng, iface is an id returned
// by AddInterface (if none was added, Add first adds one with
// Options.LinkType and Options.Snaplen, so iface 0 works); pcap ignores
// iface. A frame longer than the snap length is cut, keeping its full length
// as origlen. Timestamps are truncated to the file's resolution, and pcap
// stores seconds as uint32, so ts must lie in 1970..2106.
func (f *File) Add(ts time.Time, iface int, frame []byte) {
	if f.enc.opts.Format == Pcapng && len(f.enc.ifaces) == 0 {
		f.AddInterface(f.enc.opts.LinkType, 0, 0, f.enc.opts.Snaplen)
	}
	f.buf = f.enc.appendPacket(f.buf, ts, iface, frame, len(frame))
	f.packets++
}

// AddLen is Add with the record's original (wire) length origLen written
// as given, even below the captured length: a damaged record, as some
// writers produce, for tests of how a reader bounds it.
func (f *File) AddLen(ts time.Time, iface int, frame []byte, origLen int) {
	if f.enc.opts.Format == Pcapng && len(f.enc.ifaces) == 0 {
		f.AddInterface(f.enc.opts.LinkType, 0, 0, f.enc.opts.Snaplen)
	}
	f.buf = f.enc.appendPacket(f.buf, ts, iface, frame, origLen)
	f.packets++
}

// AddSimple appends a pcapng Simple Packet Block holding frame: a packet
// of interface 0 without a timestamp (its original length len(frame)).
// If no interface was added, it first adds one as Add does. AddSimple
// panics for pcap files.
func (f *File) AddSimple(frame []byte) {
	if f.enc.opts.Format != Pcapng {
		panic("pcaptest: AddSimple on a pcap file")
	}
	if len(f.enc.ifaces) == 0 {
		f.AddInterface(f.enc.opts.LinkType, 0, 0, f.enc.opts.Snaplen)
	}
	body := f.enc.order.AppendUint32(nil, uint32(len(frame)))
	f.AddBlock(ngSPB, append(body, frame...))
	f.packets++
}

// AddBlock appends a pcapng block of type typ holding body, padded to a
// multiple of 4 bytes, with its two length fields set: a custom, name
// resolution or statistics block, or a damaged one for tests (its body
// written as given). AddBlock panics for pcap files.
func (f *File) AddBlock(typ uint32, body []byte) {
	if f.enc.opts.Format != Pcapng {
		panic("pcaptest: AddBlock on a pcap file")
	}
	o := f.enc.order
	pad := -len(body) & 3
	length := uint32(12 + len(body) + pad)
	f.buf = o.AppendUint32(f.buf, typ)
	f.buf = o.AppendUint32(f.buf, length)
	f.buf = append(f.buf, body...)
	f.buf = append(f.buf, make([]byte, pad)...)
	f.buf = o.AppendUint32(f.buf, length)
}

// Packets returns the number of frames added so far.
func (f *File) Packets() int { return f.packets }

// Bytes returns the file contents so far. The slice aliases the File's
// buffer until the next Add.
func (f *File) Bytes() []byte { return f.buf }

// WriteFile writes the file contents to path with mode 0644.
func (f *File) WriteFile(path string) error {
	if err := os.WriteFile(path, f.buf, 0o644); err != nil {
		return fmt.Errorf("write capture %s: %w", path, err)
	}
	return nil
}

// Block types and option codes of pcapng
// (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-02.html).
const (
	ngSHB          = 0x0A0D0D0A
	ngIDB          = 0x00000001
	ngSPB          = 0x00000003
	ngEPB          = 0x00000006
	ngByteOrder    = 0x1A2B3C4D
	ngOptEnd       = 0
	ngOptTsresol   = 9
	ngOptTsoffset  = 14
	pcapMagicMicro = 0xA1B2C3D4
	pcapMagicNano  = 0xA1B23C4D
)

func (e *encoder) appendFileHeader(b []byte) []byte {
	o := e.order
	switch e.opts.Format {
	case PcapMicro, PcapNano:
		magic := uint32(pcapMagicMicro)
		if e.opts.Format == PcapNano {
			magic = pcapMagicNano
		}
		b = o.AppendUint32(b, magic)
		b = o.AppendUint16(b, 2) // version 2.4
		b = o.AppendUint16(b, 4)
		b = o.AppendUint32(b, 0) // thiszone
		b = o.AppendUint32(b, 0) // sigfigs
		b = o.AppendUint32(b, uint32(e.opts.Snaplen))
		b = o.AppendUint32(b, e.opts.LinkType)
	case Pcapng:
		b = o.AppendUint32(b, ngSHB)
		b = o.AppendUint32(b, 28)
		b = o.AppendUint32(b, ngByteOrder)
		b = o.AppendUint16(b, 1) // version 1.0
		b = o.AppendUint16(b, 0)
		b = o.AppendUint64(b, ^uint64(0)) // section length: unspecified
		b = o.AppendUint32(b, 28)
	default:
		panic(fmt.Sprintf("pcaptest: unknown format %d", e.opts.Format))
	}
	return b
}

func (e *encoder) appendIDB(b []byte, linkType uint32, tsresol byte, tsoffsetSec int64, snaplen int) []byte {
	o := e.order
	switch {
	case snaplen == 0:
		snaplen = DefaultSnaplen
	case snaplen < 0:
		snaplen = 0
	}
	ifc := ngIface{snaplen: snaplen, tsBinary: tsresol&0x80 != 0, tsExp: tsresol & 0x7f, tsOffset: tsoffsetSec}
	if tsresol == 0 {
		ifc.tsExp = 6
	}
	if ifc.tsBinary {
		if ifc.tsExp > 63 {
			panic("pcaptest: if_tsresol 2^-n with n > 63")
		}
		ifc.units = 1 << ifc.tsExp
	} else {
		if ifc.tsExp > 19 {
			panic("pcaptest: if_tsresol 10^-n with n > 19")
		}
		ifc.units = 1
		for range ifc.tsExp {
			ifc.units *= 10
		}
	}
	e.ifaces = append(e.ifaces, ifc)

	length := 20 // header, link type, reserved, snaplen, trailing length
	if tsresol != 0 {
		length += 8
	}
	if tsoffsetSec != 0 {
		length += 12
	}
	if tsresol != 0 || tsoffsetSec != 0 {
		length += 4 // opt_endofopt
	}
	b = o.AppendUint32(b, ngIDB)
	b = o.AppendUint32(b, uint32(length))
	b = o.AppendUint16(b, uint16(linkType))
	b = o.AppendUint16(b, 0)
	b = o.AppendUint32(b, uint32(snaplen))
	if tsresol != 0 {
		b = o.AppendUint16(b, ngOptTsresol)
		b = o.AppendUint16(b, 1)
		b = append(b, tsresol, 0, 0, 0)
	}
	if tsoffsetSec != 0 {
		b = o.AppendUint16(b, ngOptTsoffset)
		b = o.AppendUint16(b, 8)
		b = o.AppendUint64(b, uint64(tsoffsetSec))
	}
	if tsresol != 0 || tsoffsetSec != 0 {
		b = o.AppendUint32(b, ngOptEnd) // code 0, length 0
	}
	return o.AppendUint32(b, uint32(length))
}

// appendPacket appends one record holding frame, whose original length on
// the wire was origLen bytes (origLen >= len(frame), but for AddLen).
func (e *encoder) appendPacket(b []byte, ts time.Time, iface int, frame []byte, origLen int) []byte {
	o := e.order
	switch e.opts.Format {
	case PcapMicro, PcapNano:
		caplen := min(len(frame), e.opts.Snaplen)
		frac := uint32(ts.Nanosecond())
		if e.opts.Format == PcapMicro {
			frac /= 1000
		}
		b = o.AppendUint32(b, uint32(ts.Unix()))
		b = o.AppendUint32(b, frac)
		b = o.AppendUint32(b, uint32(caplen))
		b = o.AppendUint32(b, uint32(origLen))
		return append(b, frame[:caplen]...)
	}
	if iface < 0 || iface >= len(e.ifaces) {
		panic(fmt.Sprintf("pcaptest: interface %d not added (have %d)", iface, len(e.ifaces)))
	}
	ifc := &e.ifaces[iface]
	caplen := len(frame)
	if ifc.snaplen > 0 {
		caplen = min(caplen, ifc.snaplen)
	}
	pad := -caplen & 3
	length := 32 + caplen + pad
	t := ifc.ticks(ts)
	b = o.AppendUint32(b, ngEPB)
	b = o.AppendUint32(b, uint32(length))
	b = o.AppendUint32(b, uint32(iface))
	b = o.AppendUint32(b, uint32(t>>32))
	b = o.AppendUint32(b, uint32(t))
	b = o.AppendUint32(b, uint32(caplen))
	b = o.AppendUint32(b, uint32(origLen))
	b = append(b, frame[:caplen]...)
	b = append(b, 0, 0, 0, 0)[:len(b)+pad]
	return o.AppendUint32(b, uint32(length))
}

// ticks converts ts to the interface's timestamp units since the Unix epoch
// plus if_tsoffset, truncating (the reader adds the offset back).
func (ifc *ngIface) ticks(ts time.Time) uint64 {
	sec := uint64(ts.Unix() - ifc.tsOffset)
	hi, lo := bits.Mul64(uint64(ts.Nanosecond()), ifc.units)
	frac, _ := bits.Div64(hi, lo, 1e9)
	return sec*ifc.units + frac
}
