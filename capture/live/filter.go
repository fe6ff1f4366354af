package live

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gopacket/gopacket"
	"github.com/tcpviz/tcpviz/capture"
	"golang.org/x/net/bpf"
)

// ErrFilter wraps every error about a filter expression.
var ErrFilter = errors.New("capture filter")

// DefaultSnaplen is the snap length in bytes filters are compiled for and
// live captures keep, as tcpdump's default.
const DefaultSnaplen = 262144

// A Filter is a compiled capture filter for one link type. Raw is the BPF
// program when the backend's compiler produced one (libpcap, -tags pcap):
// it is attached to live sockets and run in user space by
// golang.org/x/net/bpf's virtual machine. The pure-Go build evaluates the
// parsed expression on each frame instead and Raw is nil. A Filter is not
// safe for concurrent use.
type Filter struct {
	Expr string
	Link int                  // pcap LINKTYPE_* the filter was compiled for
	Raw  []bpf.RawInstruction // nil in the pure-Go build
	vm   *bpf.VM
	m    matcher
}

// matcher is the pure-Go evaluator of a parsed expression.
type matcher interface {
	match(link int, data []byte) bool
}

// CompileFilter compiles the pcap-filter(7) expression expr for frames of
// pcap link type link, with the compiler in the binary (see
// FilterCompiler): the pure-Go default accepts a subset of the language and
// says clearly what it does not take. Errors wrap ErrFilter.
func CompileFilter(expr string, link int) (*Filter, error) {
	if pureGo {
		m, err := newMatcher(expr, link)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %w", ErrFilter, expr, err)
		}
		return &Filter{Expr: expr, Link: link, m: m}, nil
	}
	raw, err := compileBPF(expr, link, DefaultSnaplen)
	if err != nil {
		return nil, fmt.Errorf("%w %q (link type %d): %w", ErrFilter, expr, link, err)
	}
	ins, ok := bpf.Disassemble(raw)
	if !ok {
		return nil, fmt.Errorf("%w %q: the compiled program has instructions the BPF VM cannot run", ErrFilter, expr)
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrFilter, expr, err)
	}
	return &Filter{Expr: expr, Link: link, Raw: raw, vm: vm}, nil
}

// Match reports whether the filter accepts a frame's captured bytes.
func (f *Filter) Match(data []byte) bool {
	if f.m != nil {
		return f.m.match(f.Link, data)
	}
	n, err := f.vm.Run(data)
	return err == nil && n > 0
}

// FileFilter applies a filter expression to the frames of a capture file,
// compiling it once per link type met (pcapng files can mix them). Use Hook
// as the Reader's capture.FrameHook and check Err after reading.
type FileFilter struct {
	expr    string
	mu      sync.Mutex
	byLink  map[int]*Filter
	err     error
	next    capture.FrameHook
	matched int64
}

// NewFileFilter checks expr (compiling it for Ethernet) and returns a
// FileFilter. next, if not nil, is called for each frame the filter accepts
// (to copy it to a file, say) and may reject it in turn.
func NewFileFilter(expr string, next capture.FrameHook) (*FileFilter, error) {
	f, err := CompileFilter(expr, linkEthernet)
	if err != nil {
		return nil, err
	}
	return &FileFilter{expr: expr, byLink: map[int]*Filter{linkEthernet: f}, next: next}, nil
}

// Hook is the capture.FrameHook that runs the filter. A frame whose link type
// the filter cannot be compiled for is dropped and the error kept for Err.
func (ff *FileFilter) Hook(link int, data []byte, t capture.Timestamp, ci gopacket.CaptureInfo) bool {
	f, ok := ff.byLink[link]
	if !ok {
		var err error
		f, err = CompileFilter(ff.expr, link)
		if err != nil && ff.err == nil {
			ff.err = err
		}
		ff.byLink[link] = f
	}
	if f == nil || !f.Match(data) {
		return false
	}
	if ff.next != nil && !ff.next(link, data, t, ci) {
		return false
	}
	ff.matched++
	return true
}

// Err returns the first link type the filter could not be compiled for, if
// frames of it were met; such frames were all dropped.
func (ff *FileFilter) Err() error { return ff.err }

// Matched returns how many frames the filter accepted.
func (ff *FileFilter) Matched() int64 { return ff.matched }

// pcap link types the pure-Go filter path knows.
const (
	linkNull      = 0
	linkEthernet  = 1
	linkPPP       = 9
	linkRawAlt1   = 12
	linkRawAlt2   = 14
	linkRaw       = 101
	linkLoop      = 108
	linkLinuxSLL  = 113
	linkLinuxSLL2 = 276
)
