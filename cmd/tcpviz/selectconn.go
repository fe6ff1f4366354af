package main

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// connFlags select one connection and direction of a capture.
type connFlags struct {
	conn int
	port int
	host string
	dir  string
}

func (f *connFlags) register(c *cobra.Command) {
	c.Flags().IntVar(&f.conn, "conn", -1, "connection index (as listed by 'tcpviz flows'); default: the one that carried most payload bytes")
	c.Flags().IntVar(&f.port, "port", 0, "only consider connections with this port on either side")
	c.Flags().StringVar(&f.host, "host", "", "only consider connections with this address on either side")
	c.Flags().StringVar(&f.dir, "dir", "", "data direction: a2b (from the SYN sender) or b2a; default: the direction with more payload bytes")
}

// pick chooses the connection and direction from a first-pass report and
// says on stderr what it chose when the user did not.
func (f *connFlags) pick(rep *tcpanalysis.Report, stderr io.Writer) (*tcpanalysis.ConnResult, flows.Direction, error) {
	var host netip.Addr
	if f.host != "" {
		h, err := netip.ParseAddr(f.host)
		if err != nil {
			return nil, 0, fmt.Errorf("--host %q: %v", f.host, err)
		}
		host = h
	}
	var best *tcpanalysis.ConnResult
	if f.conn < -1 {
		return nil, 0, fmt.Errorf("--conn %d: connection indexes start at 0", f.conn)
	}
	if f.conn >= 0 {
		if f.conn >= len(rep.Conns) {
			return nil, 0, fmt.Errorf("%s has %d connections (0..%d); no --conn %d", rep.File, len(rep.Conns), len(rep.Conns)-1, f.conn)
		}
		best = rep.Conns[f.conn]
	} else {
		for _, r := range rep.Conns {
			k := r.Conn.Key
			if f.port != 0 && int(k.Lo.Port()) != f.port && int(k.Hi.Port()) != f.port {
				continue
			}
			if host.IsValid() && k.Lo.Addr() != host && k.Hi.Addr() != host {
				continue
			}
			if best == nil || r.Dir[0].Bytes+r.Dir[1].Bytes > best.Dir[0].Bytes+best.Dir[1].Bytes {
				best = r
			}
		}
		if best == nil {
			return nil, 0, fmt.Errorf("%s: no TCP connection matches", rep.File)
		}
		fmt.Fprintf(stderr, "%s: using conn %d (%s ↔ %s, %d payload bytes; the largest matching; --conn N picks another)\n",
			rep.File, best.Conn.Index, best.Conn.Half[0].Addr, best.Conn.Half[1].Addr, best.Dir[0].Bytes+best.Dir[1].Bytes)
	}
	var d flows.Direction
	switch strings.ToLower(f.dir) {
	case "a2b", "ab":
		d = flows.AtoB
	case "b2a", "ba":
		d = flows.BtoA
	case "":
		if best.Dir[flows.BtoA].Bytes > best.Dir[flows.AtoB].Bytes {
			d = flows.BtoA
		}
	default:
		return nil, 0, fmt.Errorf("--dir %q: want a2b or b2a", f.dir)
	}
	return best, d, nil
}

// spoolStdin copies standard input to a temporary file when path is "-", so
// that two-pass verbs can read it twice. cleanup removes the file.
func spoolStdin(path string, stdin io.Reader) (string, func(), error) {
	if path != "-" {
		return path, func() {}, nil
	}
	f, err := os.CreateTemp("", "tcpviz-stdin-*.pcap")
	if err != nil {
		return "", nil, err
	}
	addTemp(f.Name()) // removed on SIGINT/SIGTERM too
	cleanup := func() { os.Remove(f.Name()); dropTemp(f.Name()) }
	if _, err := io.Copy(f, stdin); err != nil {
		f.Close()
		cleanup()
		return "", nil, fmt.Errorf("read standard input: %w", err)
	}
	f.Close()
	return f.Name(), cleanup, nil
}

// onePassLimit is the capture size up to which per-connection verbs keep
// every connection's series in one pass (memory grows with packets);
// larger captures take a summary pass to choose the connection first.
const onePassLimit = 16 << 20

// analyzeOne analyses path keeping the series of the connection the flags
// choose. With --conn, or for a capture up to onePassLimit bytes, that is
// one pass; otherwise a summary pass chooses the connection and a second
// keeps its series.
func (e *env) analyzeOne(path string, af *analysisFlags, cf *connFlags) (*tcpanalysis.Report, *tcpanalysis.ConnResult, flows.Direction, error) {
	opts, err := af.options()
	if err != nil {
		return nil, nil, 0, err
	}
	p, cleanup, err := spoolStdin(path, e.stdin)
	if err != nil {
		return nil, nil, 0, err
	}
	defer cleanup()
	small := false
	if st, err := os.Stat(p); err == nil && st.Size() <= onePassLimit {
		small = true
	}
	if cf.conn >= 0 || small {
		one := opts
		if cf.conn >= 0 {
			want := cf.conn
			one.Keep = func(i int) bool { return i == want }
		} else {
			one.Keep = func(int) bool { return true }
		}
		rep, err := e.analyze(p, one)
		if err != nil {
			return nil, nil, 0, err
		}
		rep.File = path
		r, d, err := cf.pick(rep, e.stderr)
		if err != nil {
			return nil, nil, 0, &exitError{code: 2, err: err}
		}
		return rep, r, d, nil
	}
	rep, err := e.analyze(p, opts)
	if err != nil {
		return nil, nil, 0, err
	}
	rep.File = path
	r, d, err := cf.pick(rep, e.stderr)
	if err != nil {
		return nil, nil, 0, &exitError{code: 2, err: err}
	}
	idx := r.Conn.Index
	opts.Keep = func(i int) bool { return i == idx }
	rep2, err := tcpanalysis.AnalyzeFile(p, opts)
	if err != nil {
		return nil, nil, 0, inputError(err)
	}
	rep2.File = path
	return rep2, rep2.Conns[idx], d, nil
}
