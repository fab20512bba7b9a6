#!/usr/bin/env bash
# `make bench`: throughput of `prestage fit` on a generated CloudFront log, as lines per second of
# wall time (and peak memory where GNU time is installed). The log repeats the shipped sample's
# well-formed records up to FIT_BENCH_LINES lines (default 1,000,000, about 250 MB).
# Usage: Tests/bench/fit-throughput.sh [PRESTAGE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/release/prestage}
lines=${FIT_BENCH_LINES:-1000000}
sample=Tests/LogFitTests/Samples/cloudfront.log
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  grep '^#' "$sample"
  awk -F'\t' -v n="$lines" '
    /^#/ || NF < 28 { next }
    { rec[k++] = $0 }
    END { for (i = 0; i < n; i++) print rec[i % k] }' "$sample"
} > "$work/big.log"
bytes=$(stat -c %s "$work/big.log")
start=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$work/rss" "$bin" fit "$work/big.log" --format cloudfront --out "$work/overlay.json" > "$work/out.log" 2>&1
else
  "$bin" fit "$work/big.log" --format cloudfront --out "$work/overlay.json" > "$work/out.log" 2>&1
fi
end=$(date +%s.%N)
rss=""
[ -f "$work/rss" ] && rss=", peak RSS $(( $(tail -1 "$work/rss") / 1024 )) MiB"
awk -v l="$lines" -v b="$bytes" -v s="$start" -v e="$end" -v r="$rss" \
  'BEGIN { t = e - s; printf "fit bench: %d lines (%.0f MB) in %.2f s wall = %.0f lines/s%s\n", l, b / 1e6, t, l / t, r }'
