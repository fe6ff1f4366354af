//go:build pcap

package main

// testBuildTags are the build tags of this test binary, passed on to the
// tcpviz binary TestLiveNetns builds.
const testBuildTags = "pcap"
