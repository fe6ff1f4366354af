#!/usr/bin/env bash
# bench-instructions.sh [TCPVIZ...]: instructions per packet of
# 'tcpviz flows --csv' and of 'tcptrace -l -r -n' on two captures of about
# 300 000 packets made like the benchmark's (bulk and short, written to
# /tmp/tcpviz-instr), counted by valgrind's cachegrind (Debian package
# valgrind).
#
# Unlike wall and CPU time on a shared machine, the count repeats from run
# to run: to 0.1 % on bulk. Short allocates more, and the garbage
# collector's timing moves its count by up to 7 %, so tcpviz is also
# counted on short with GOGC=off (no collection: the hot path alone, to
# 0.2 %). It tells a change of the per-packet path apart from the
# machine's noise. It is not time: cache misses, branch mispredictions and
# the second core are not in it.
#
# tcpviz runs with GOMAXPROCS=1 (one Analyzer behind a reading goroutine,
# Reader.NextBatch): valgrind runs one thread at a time, and the sharded
# pipeline's goroutines would spin waiting for each other, so the shard
# dispatch and split reading are not counted. GODEBUG=asyncpreemptoff=1
# keeps Go's preemption signals away from valgrind, which does not always
# survive them.
#
#   scripts/bench-instructions.sh              # builds ./cmd/tcpviz of this tree
#   scripts/bench-instructions.sh old/tcpviz new/tcpviz
set -euo pipefail

for t in valgrind bc; do
	command -v "$t" >/dev/null || { echo "bench-instructions: needs $t (apt-get install $t)" >&2; exit 1; }
done
root=$(cd "$(dirname "$0")/.." && pwd)
dir=/tmp/tcpviz-instr
want=300000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/tcpviz" ./cmd/tcpviz && go build -o "$tmp/gencap" ./internal/pcaptest/cmd/gencap)

# The captures are made again unless a stamp says they are this
# generator's, of these sizes; each is written aside, then renamed.
stamp="gencap $(sha256sum "$tmp/gencap" | cut -c1-16) packets $want seed 1"
if [ "$(cat "$dir/stamp" 2>/dev/null)" != "$stamp" ] || [ ! -f "$dir/bulk.pcap" ] || [ ! -f "$dir/short.pcap" ]; then
	mkdir -p "$dir"
	rm -f "$dir/stamp"
	"$tmp/gencap" -mode bulk -packets $want -flows 8 -seed 1 -o "$dir/bulk.pcap.new" >&2
	"$tmp/gencap" -mode short -packets $want -flows 64 -seed 1 -o "$dir/short.pcap.new" >&2
	mv "$dir/bulk.pcap.new" "$dir/bulk.pcap"
	mv "$dir/short.pcap.new" "$dir/short.pcap"
	echo "$stamp" >"$dir/stamp"
fi

# frames FILE: the number of frames in FILE, as tcpviz counts them.
frames() {
	"$tmp/tcpviz" flows "$1" 2>/dev/null | sed -n '1s/.*pcap, \([0-9]*\) frames.*/\1/p'
}
nb=$(frames "$dir/bulk.pcap")
ns=$(frames "$dir/short.pcap")

# count CMD...: the instructions valgrind counted for one run of CMD, or
# a failure with valgrind's message.
count() {
	local n
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" >/dev/null 2>"$tmp/vg" || {
		echo "bench-instructions: $* failed: $(grep -v '^==' "$tmp/vg" | tail -1)" >&2
		exit 1
	}
	n=$(awk '/I +refs/ { gsub(",", "", $NF); print $NF }' "$tmp/vg")
	[ -n "$n" ] || { echo "bench-instructions: no count from valgrind for $*" >&2; exit 1; }
	echo "$n"
}
per() { printf "%.1f" "$(echo "$1 / $2" | bc -l)"; }

for b in "$@"; do
	[ -x "$b" ] || { echo "bench-instructions: $b is not an executable" >&2; exit 1; }
done
echo "| program | bulk ($nb packets) | short ($ns packets) | short, GOGC=off |"
echo "|---|---|---|---|"
for b in "$@" ""; do
	label=$b
	if [ -z "$b" ]; then
		[ $# -eq 0 ] || continue
		b=$tmp/tcpviz
		label="this tree ($(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown))"
	fi
	export GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1
	cb=$(count "$b" flows --csv "$dir/bulk.pcap")
	cs=$(count "$b" flows --csv "$dir/short.pcap")
	co=$(GOGC=off count "$b" flows --csv "$dir/short.pcap")
	unset GOMAXPROCS GODEBUG
	echo "| tcpviz flows --csv, $label | $(per "$cb" "$nb") | $(per "$cs" "$ns") | $(per "$co" "$ns") |"
done
if command -v tcptrace >/dev/null; then
	echo "| tcptrace -l -r -n | $(per "$(count tcptrace -l -r -n "$dir/bulk.pcap")" "$nb") | $(per "$(count tcptrace -l -r -n "$dir/short.pcap")" "$ns") | |"
else
	echo "bench-instructions: tcptrace not found: its row is left out (apt-get install tcptrace)" >&2
fi
