#!/bin/sh
# update-uplot.sh [VERSION]: refresh the vendored uPlot (MIT) in
# report/assets/uplot from the npm registry (default: the version below).
# The report embeds these files with go:embed; no CDN is ever used.
set -eu
version=${1:-1.6.32}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm install --no-save --no-audit --no-fund --silent "uplot@$version" >/dev/null)
src="$tmp/node_modules/uplot"
dst="$root/report/assets/uplot"
mkdir -p "$dst"
cp "$src/dist/uPlot.iife.min.js" "$src/dist/uPlot.min.css" "$src/LICENSE" "$dst/"
node -e 'console.log(require(process.argv[1]).version)' "$src/package.json" > "$dst/VERSION"
echo "uPlot $(cat "$dst/VERSION") -> $dst"
