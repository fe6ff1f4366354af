#!/usr/bin/env bash
# bench-compare.sh [DIR]: time tcpviz against tcptrace and tshark on the
# benchmark captures of gen-bench-captures.sh (made in DIR, default
# /tmp/tcpviz-bench, when missing), alternating the tools, RUNS times each
# (default 3), and print a Markdown table of the medians: wall time, CPU
# time (user + sys) and peak RSS, from /usr/bin/time -v.
#
#   RUNS=3 TSHARK_RUNS=1 scripts/bench-compare.sh
#
# TSHARK_RUNS (default 1) bounds the tshark runs: it takes minutes on bulk.
# SKIP_TSHARK=1 leaves it out. Needs /usr/bin/time (Debian package time),
# tcptrace and tshark; a missing tool is left out with a note.
set -euo pipefail

dir=${1:-/tmp/tcpviz-bench}
runs=${RUNS:-3}
tshark_runs=${TSHARK_RUNS:-1}
root=$(cd "$(dirname "$0")/.." && pwd)

[ -x /usr/bin/time ] || { echo "bench-compare: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [ ! -f "$dir/bulk.pcap" ] || [ ! -f "$dir/short.pcap" ]; then
	sh "$root/scripts/gen-bench-captures.sh" "$dir" >&2
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/tcpviz" ./cmd/tcpviz)

# measure NAME CMD...: one run; appends "name wall cpu rss_kb" to $bin/raw.
measure() {
	local name=$1
	shift
	# Each command finds the capture in the page cache, as the targets say:
	# DAMON pageout evicts an unused capture here, and tshark's 5 GB on
	# bulk pushes it out (a flows run after it took 2.9 s instead of 0.9).
	cat "$cap" >/dev/null
	/usr/bin/time -v -o "$bin/t" "$@" >/dev/null 2>"$bin/err" || { echo "bench-compare: $name failed: $(tail -1 "$bin/err")" >&2; return; }
	awk -v n="$name" -F': ' '
		/Elapsed \(wall clock\)/ { split($2, p, ":"); w = (length(p) == 3) ? p[1]*3600 + p[2]*60 + p[3] : p[1]*60 + p[2] }
		/User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { r = $2 }
		END { printf "%s %.3f %.3f %d\n", n, w, u + s, r }' "$bin/t" >>"$bin/raw"
}

have() { command -v "$1" >/dev/null 2>&1; }
: >"$bin/raw"
load=$(cut -d' ' -f1-3 /proc/loadavg)
for f in bulk short; do
	cap="$dir/$f.pcap"
	for i in $(seq 1 "$runs"); do
		measure "$f|tcpviz flows --csv" "$bin/tcpviz" flows --csv "$cap"
		have tcptrace && measure "$f|tcptrace -l -r -n" tcptrace -l -r -n "$cap"
		measure "$f|tcpviz retrans --csv" "$bin/tcpviz" retrans --csv "$cap"
		measure "$f|tcpviz rtt --csv" "$bin/tcpviz" rtt --csv "$cap"
		if [ -z "${SKIP_TSHARK:-}" ] && have tshark && [ "$i" -le "$tshark_runs" ]; then
			measure "$f|tshark -q -z conv,tcp" tshark -q -n -r "$cap" -z conv,tcp
		fi
	done
done

echo "| capture | command | runs | wall s (median) | CPU s (median) | peak RSS MiB (median) |"
echo "|---|---|---|---|---|---|"
awk '{ key = $1; for (i = 2; i <= NF - 3; i++) key = key " " $i
	   n[key]++; w[key, n[key]] = $(NF-2); c[key, n[key]] = $(NF-1); r[key, n[key]] = $NF; order[key] = ++k }
	function med(a, key, m,   i, j, t, v) { for (i = 1; i <= m; i++) v[i] = a[key, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return v[int((m + 1) / 2)] }
	END { for (key in n) { split(key, p, "|"); printf "| %s | %s | %d | %.2f | %.2f | %.0f |\n", p[1], p[2], n[key], med(w, key, n[key]), med(c, key, n[key]), med(r, key, n[key]) / 1024 } }' \
	"$bin/raw" | sort
echo
echo "Machine: $(nproc) cores, $(uname -r); load average at the start: $load (other load skews wall times; CPU times less)."
