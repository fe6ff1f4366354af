#!/usr/bin/env bash
# bench-series.sh N CAPTURE TCPVIZ...: the series commands (seq, window,
# tput: figure and CSV) against 'flows --csv' on CAPTURE, N rounds; in each
# round every command runs with every tcpviz build given, alternating, and
# its wall time is divided by that build's 'flows --csv' wall time of the
# same round. Prints, per build and command, the median wall and CPU time
# (user + sys), the highest peak RSS over the rounds in MiB (the kB of
# /usr/bin/time ÷ 1024) and the median of the per-round ratios
# (docs/performance.md). A first untimed run of every build's flows brings
# the capture into the page cache (this machine's DAMON pageout evicts an
# unused one). Needs /usr/bin/time (Debian package time) and bc.
set -euo pipefail
n=$1; cap=$2; shift 2
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
cmds=("flows --csv" "seq -o $out/s.png" "window -o $out/w.png" "tput -o $out/t.png" "seq -o $out/s.csv" "window -o $out/w.csv")
declare -A W C M R F
for b in "$@"; do
  "$b" flows --csv "$cap" >/dev/null 2>&1 || true # warm-up, untimed
done
for _ in $(seq 1 "$n"); do
  for c in "${cmds[@]}"; do
    for b in "$@"; do
      /usr/bin/time -o "$out/t" -f "%e %U %S %M" "$b" $c "$cap" >/dev/null 2>&1
      read -r w u s m < "$out/t"
      W[$b|$c]+="$w "; C[$b|$c]+="$(echo "$u+$s" | bc) "
      [ "$m" -gt "${M[$b|$c]:-0}" ] && M[$b|$c]=$m
      [ "$c" = "flows --csv" ] && F[$b]=$w
      R[$b|$c]+="$(echo "scale=3; $w/${F[$b]}" | bc) "
    done
  done
done
med() { echo "$1" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
for b in "$@"; do
  echo "== $b"
  for c in "${cmds[@]}"; do
    echo "${c/$out\//}: wall $(med "${W[$b|$c]}") s, cpu $(med "${C[$b|$c]}") s, peak RSS $((M[$b|$c]/1024)) MiB, ratio to flows $(med "${R[$b|$c]}") [${R[$b|$c]}]"
  done
done
