// Command gencap writes large synthetic pcap files for tcpviz benchmarks.
//
//	gencap -mode bulk -packets 10000000 -flows 8 -o bulk.pcap
//	gencap -mode short -packets 3200000 -flows 64 -o short.pcap
//	gencap -mode descending -packets 200000 -o desc.pcap   (any pcaptest.Hostile)
//	gencap -mode turnover -packets 1000000 -o turnover.pcap (connections)
//	gencap -mode bomb -packets 1073741824 -o bomb.pcap      (record length)
//
// Both modes write little-endian µs pcap with Ethernet/IPv4/TCP frames cut
// to -snaplen bytes; see pcaptest.WriteBulk and pcaptest.WriteShort.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "gencap:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("gencap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mode := fs.String("mode", "bulk", "bulk (long interleaved transfers), short (many short connections), turnover (-packets connections one after another, 10 ms apart), bomb (one record of -packets bytes) or a hostile kind: descending, fill-holes, retransmit-all, sack-descending, sack-holes, seq-jumps, syn-flood")
	packets := fs.Int("packets", 1_000_000, "total packets to write")
	flows := fs.Int("flows", 0, "bulk: concurrent flows (0 = 8); short: connections open at once (0 = 64)")
	out := fs.String("o", "", "output pcap file (required; - for stdout)")
	seed := fs.Int64("seed", 1, "random seed; the same flags give the same bytes")
	snaplen := fs.Int("snaplen", 128, "snap length in bytes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() != 0 {
		fs.Usage()
		return errors.New("need -o FILE and no arguments")
	}
	opts := pcaptest.GenOptions{Packets: *packets, Flows: *flows, Seed: *seed, Snaplen: *snaplen}
	var write func(io.Writer) error
	switch *mode {
	case "bulk":
		write = func(w io.Writer) error { return pcaptest.WriteBulk(w, opts) }
	case "short":
		write = func(w io.Writer) error { return pcaptest.WriteShort(w, opts) }
	case "turnover":
		write = func(w io.Writer) error { return pcaptest.WriteTurnover(w, *packets, 10*time.Millisecond) }
	case "bomb":
		write = func(w io.Writer) error { return pcaptest.WriteBomb(w, uint32(*packets)) }
	default:
		if !slices.Contains(pcaptest.Hostiles, pcaptest.Hostile(*mode)) {
			return fmt.Errorf("unknown -mode %q (want bulk, short, bomb or one of %v)", *mode, pcaptest.Hostiles)
		}
		write = func(w io.Writer) error { return pcaptest.WriteHostile(w, pcaptest.Hostile(*mode), *packets) }
	}
	if *out == "-" {
		return write(os.Stdout)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", *out, err)
	}
	return nil
}
