#!/usr/bin/env bash
# Runs libFuzzer targets built by build.sh, one after the other, each for SECONDS, and prints per
# target the executions and coverage from libFuzzer's final statistics.
#
#   Tests/fuzz/run.sh SECONDS [TARGET...]     (default: every target)
#
# Each target reads its committed seeds (Tests/fuzz/corpus/<target>/, never written) and writes
# what it discovers to .build/fuzz/corpus-<target>/ (kept between runs, so coverage accumulates).
# With FUZZ_FRESH=1 (the smoke in `make test`) it starts from the seeds alone, in a scratch
# directory emptied first (.build/fuzz/smoke-<target>/), so its time does not grow with the corpus.
# A crash, a per-input timeout or running out of memory stops the target; the input that did it is
# saved as .build/fuzz/crashes/<target>/crash-* (or timeout-*, oom-*) and the script fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:?usage: run.sh SECONDS [TARGET...]}; shift
targets=("$@"); (( ${#targets[@]} )) || targets=(payload manifest url headers session scenario logs)
OUT=.build/fuzz

# Longest input per target, bytes: a little above what the code under test reads (judgement):
# a push payload is at most 4 KiB (APNs), a URL 2048 bytes (URLPolicy.defaultURLLengthMax) plus a
# few allowlist lines, a Cache-Control value 1024 (CacheControl.headerBytesMax) plus a body prefix,
# a session script a few hundred events, the bundled scenarios are under 4.2 KB.
declare -A MAX_LEN=([payload]=4096 [manifest]=4096 [url]=2400 [headers]=1200 [session]=1024 [scenario]=8192 [logs]=4096)

# The Swift runtime's own crash backtracer, run inside an ASan process, trips ASan itself
# (stack-buffer-underflow in memserver_read) and hides the real report: libFuzzer reports instead.
export SWIFT_BACKTRACE=enable=no
# ASan defaults (leak detection on); abort_on_error=0 so libFuzzer saves the input and prints stats.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:symbolize=1}

failed=()
for t in "${targets[@]}"; do
  bin=$OUT/bin/fuzz-$t work=$OUT/corpus-$t art=$OUT/crashes/$t log=$OUT/logs/$t.log
  if [[ ${FUZZ_FRESH:-0} == 1 ]]; then work=$OUT/smoke-$t; rm -rf "$work"; fi
  [[ -x $bin ]] || { echo "fuzz $t: $bin missing; run Tests/fuzz/build.sh" >&2; exit 2; }
  mkdir -p "$work" "$art" "$OUT/logs"
  # -timeout: one input running 10 s is a hang (the slowest here take milliseconds; judgement).
  # -rss_limit_mb: libFuzzer's default, stated.
  "$bin" "$work" "Tests/fuzz/corpus/$t" -max_total_time="$seconds" -max_len="${MAX_LEN[$t]}" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*')
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*')
  corp=$(grep -o 'corp: [0-9]*/[0-9]*[bKM]*' <<<"$last" | cut -d' ' -f2)
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*')
  if (( rc == 0 )); then
    printf 'fuzz %-8s %10s executions in %s s, cov %s, ft %s, corpus %s (log %s)\n' "$t" "${execs:-?}" "${secs:-$seconds}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$log"
  else
    printf 'fuzz %-8s FAILED after %s executions (exit %d); input saved in %s/, log %s:\n' "$t" "${execs:-?}" "$rc" "$art" "$log" >&2
    grep -E 'fuzz invariant|Fatal error|ERROR: |SUMMARY|Test unit written|^    #[0-9]+ 0x' "$log" | head -25 >&2
    failed+=("$t")
  fi
done
(( ${#failed[@]} == 0 )) || { echo "fuzz: failed: ${failed[*]}" >&2; exit 1; }
