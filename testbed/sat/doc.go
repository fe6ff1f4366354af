// Package sat is the satellite/PEP testbed behind `tcpviz testbed sat`.
//
// Run builds five fresh network namespaces (cli — lanemu — rtr — satemu — srv)
// joined by veth pairs, emulates the LAN and the satellite hop with a
// user-space AF_PACKET forwarder (Link is its pure queue/delay/loss model;
// RunEmulator the forwarder), optionally runs a transparent split-TCP PEP
// (RunPEP) in rtr, drives an iperf3 upload and captures it with tcpdump at the
// client and the server. Summarize derives the headline numbers (handshake
// RTT, ACK RTT, progress 1 s after bulk start) from a capture.
//
// sat does not analyse captures beyond those few numbers (that is the job of
// the rest of tcpviz), and it needs root, iproute2, iperf3, tcpdump and nft.
package sat
