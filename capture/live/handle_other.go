//go:build !linux && !pcap

package live

import "errors"

// Backend names the capture backend in the binary, for --help.
const Backend = "none (live capture needs Linux, or a build with -tags pcap)"

func openHandle(Options) (handle, error) {
	return nil, errors.New("this tcpviz was built without a live-capture backend: build on Linux, or with -tags pcap and libpcap")
}
