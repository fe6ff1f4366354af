// Command gencap writes large synthetic pcap files for tcpviz benchmarks.
//
//	gencap -mode bulk -packets 10000000 -flows 8 -o bulk.pcap
//	gencap -mode short -packets 3200000 -flows 64 -o short.pcap
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
	mode := fs.String("mode", "bulk", "bulk (long interleaved transfers) or short (many short connections)")
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
	write := pcaptest.WriteBulk
	switch *mode {
	case "bulk":
	case "short":
		write = pcaptest.WriteShort
	default:
		return fmt.Errorf("unknown -mode %q (want bulk or short)", *mode)
	}
	opts := pcaptest.GenOptions{Packets: *packets, Flows: *flows, Seed: *seed, Snaplen: *snaplen}
	if *out == "-" {
		return write(os.Stdout, opts)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := write(f, opts); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", *out, err)
	}
	return nil
}
