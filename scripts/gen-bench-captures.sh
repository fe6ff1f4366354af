#!/bin/sh
# gen-bench-captures.sh DIR: write the benchmark captures into DIR
# (default /tmp/tcpviz-bench):
#   bulk.pcap   10M packets, 8 interleaved bulk flows, snaplen 128 (~1.4 GB)
#   short.pcap  3.2M packets, ~80 000 short connections, snaplen 128
# Override sizes with BULK_PACKETS, SHORT_PACKETS, FLOWS and SEED.
set -eu

dir=${1:-/tmp/tcpviz-bench}
bulk=${BULK_PACKETS:-10000000}
short=${SHORT_PACKETS:-3200000}
seed=${SEED:-1}

root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

(cd "$root" && go build -o "$bin/gencap" ./internal/pcaptest/cmd/gencap)
"$bin/gencap" -mode bulk -packets "$bulk" -flows "${FLOWS:-8}" -seed "$seed" -o "$dir/bulk.pcap"
"$bin/gencap" -mode short -packets "$short" -flows "${FLOWS:-64}" -seed "$seed" -o "$dir/short.pcap"
ls -l "$dir/bulk.pcap" "$dir/short.pcap"
