// Package manet runs tcpviz's own ns-3 MANET scenario: saturating TCP CUBIC
// (or UDP CBR) flows over AODV, OLSR or DSDV among RandomWaypoint nodes on
// 802.11b, with radiotap pcaps and per-flow ground truth from inside the
// simulator.
//
// The C++ scenario is embedded (Source). Build compiles it once against the
// system's ns-3 3.37 (Debian ns3/libns3-dev) and caches the binary by a hash of
// source, compiler and flags. A Campaign runs protocols × seeds in parallel and
// writes every run's files flat into one directory with the naming of
// shared/ns3 (<transport>-<protocol>-r<run>-<node>-<dev>.pcap[.gz],
// <prefix>-groundtruth.csv, ...) plus groundtruth-all.csv.
//
// manet does not analyse the captures; that is the rest of tcpviz's job.
package manet
