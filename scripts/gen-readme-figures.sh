#!/bin/sh
# Regenerates the README's figures in docs/img with the commands the README
# shows. Run from the repository root; the goodput figures need ../shared/ns3.
set -eu
T="go run ./cmd/tcpviz"
$T seq testdata/synthetic/geo-600ms-loss.pcap -o docs/img/seq-geo-600ms-loss.png
$T seq testdata/sat/pep-off_window-20KB/client.pcap -o docs/img/seq-sat-nopep-20KB.png
$T seq testdata/sat/pep-on_window-20KB/client.pcap --from 1.2 --to 2.0 -o docs/img/seq-sat-pep-20KB.png
$T compare nopep=testdata/sat/pep-off_window-20KB/client.pcap pep=testdata/sat/pep-on_window-20KB/client.pcap -o docs/img/compare-pep-seq.png >/dev/null
$T rtt testdata/sat/pep-on_window-20KB/client.pcap -o docs/img/rtt-sat-pep-20KB.png
if [ -d ../shared/ns3 ]; then
	$T goodput ../shared/ns3 --labels '{transport}-{protocol}-r{seed}-{node}-{dev}.pcap' --group protocol --pair seed --end 100 \
		--order olsr,dsdv,aodv --plot docs/img/goodput-ns3.png --label ../shared/ns3 -o /dev/null --tables /dev/null
fi
