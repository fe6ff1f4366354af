#!/usr/bin/env bash
# bench-instructions.sh [TCPVIZ...]: instructions per packet of
# 'tcpviz flows --csv' and of 'tcptrace -l -r -n' on two 300 000-packet
# captures made like the benchmark's (bulk and short, in /tmp/tcpviz-instr),
# counted by valgrind's cachegrind (Debian package valgrind).
#
# Unlike wall and CPU time on a shared machine, the count is the same from
# run to run (to 0.02 % on bulk; short allocates more, and the runtime's
# background collection moves it by about 0.5 %), so it tells a change of
# the per-packet path apart from the machine's noise. It is not time: it
# ignores cache misses and what the second core adds. tcpviz runs with
# GOMAXPROCS=1 (one Analyzer behind a reading goroutine): valgrind runs one
# thread at a time, and the sharded pipeline's goroutines would spin
# waiting for each other (docs/performance.md).
#
#   scripts/bench-instructions.sh              # builds ./cmd/tcpviz
#   scripts/bench-instructions.sh old/tcpviz new/tcpviz
set -euo pipefail

command -v valgrind >/dev/null || { echo "bench-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
dir=/tmp/tcpviz-instr
pkts=300000
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$dir/bulk.pcap" ] || [ ! -f "$dir/short.pcap" ]; then
	(cd "$root" && go build -o "$tmp/gencap" ./internal/pcaptest/cmd/gencap)
	"$tmp/gencap" -mode bulk -packets $pkts -flows 8 -seed 1 -o "$dir/bulk.pcap" >&2
	"$tmp/gencap" -mode short -packets $pkts -flows 64 -seed 1 -o "$dir/short.pcap" >&2
fi
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	(cd "$root" && go build -o "$tmp/tcpviz" ./cmd/tcpviz)
	bins=("$tmp/tcpviz")
fi

# count CMD...: the instructions valgrind counted for one run of CMD.
count() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		awk '/I +refs/ { gsub(",", "", $NF); print $NF }'
}

echo "| program | bulk: instructions per packet | short: instructions per packet |"
echo "|---|---|---|"
row() {
	local name=$1 b s
	shift
	b=$(count "$@" "$dir/bulk.pcap")
	s=$(count "$@" "$dir/short.pcap")
	printf "| %s | %.1f | %.1f |\n" "$name" "$(echo "$b / $pkts" | bc -l)" "$(echo "$s / $pkts" | bc -l)"
}
for b in "${bins[@]}"; do
	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 row "tcpviz flows --csv ($b)" "$b" flows --csv
done
if command -v tcptrace >/dev/null; then
	row "tcptrace -l -r -n" tcptrace -l -r -n
fi
