// Command gensynth writes the project's synthetic demo captures into
// testdata/synthetic (run from the module root: go run ./internal/pcaptest/cmd/gensynth).
// The files are deterministic; tcpanalysis tests check their known RTT,
// losses and retransmissions.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

func main() {
	dir := "testdata/synthetic"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for name, segs := range pcaptest.DemoCaptures() {
		f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkEthernet, Snaplen: 128})
		for _, s := range segs {
			f.Add(s.T, 0, pcaptest.Ethernet(s.IP()))
		}
		path := filepath.Join(dir, name)
		if err := f.WriteFile(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(path, f.Packets(), "packets")
	}
}
