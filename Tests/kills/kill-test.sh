#!/usr/bin/env bash
# Kills `prestage run` with SIGKILL at random points, hundreds of times, and checks after every kill
# what the docs promise (docs/cli.md, "The results directory"):
#   - OUT, if it exists, is complete: every result file; an INCOMPLETE marker in it is allowed only
#     as this tool's (a kill between the commit's rename and the marker's removal);
#   - OUT.partial, if it exists, holds this tool's INCOMPLETE marker or nothing but temporary
#     files: never a complete-looking directory without marker and rename;
#   - the next run to the same OUT succeeds and leaves OUT complete, with no marker, no OUT.partial
#     and no lock file.
# Usage: Tests/kills/kill-test.sh [KILLS]   (make test-kills runs 300; PRESTAGE_KILL_BIN picks the binary)
set -u
cd "$(dirname "$0")/../.."
BIN=${PRESTAGE_KILL_BIN:-.build/debug/prestage}
KILLS=${1:-${PRESTAGE_KILLS:-300}}
[ -x "$BIN" ] || { echo "kill-test: no executable $BIN (swift build first)" >&2; exit 1; }
T=$(mktemp -d /tmp/prestage-kills.XXXX)
trap 'rm -rf "$T"' EXIT
OUT=$T/out
ARGS=(run default --devices 200 --replications 2 --jobs 1 --out "$OUT")
FILES="scenario.json summary.json timeseries.csv tap-to-paint-windows.csv histograms.csv report.md report.html run-info.json"
# This tool's marker (and the marker of versions before owner records, for PRESTAGE_KILL_BIN runs of them).
HEAD="(prestage: this directory is incomplete|This run has not completed)"

# The length of an uninterrupted run, in ms: kills are spread over it, half of them near its end.
start=$(date +%s%N); "$BIN" "${ARGS[@]}" >/dev/null 2>&1 || { echo "kill-test: a plain run failed" >&2; exit 1; }
full_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "kill-test: $KILLS kills of '$BIN ${ARGS[*]}' (an uninterrupted run takes ${full_ms} ms)"

fail=0; window=0; partials=0; completes=0; asides=0
check_complete() {  # $1: why
  for f in $FILES; do [ -f "$OUT/$f" ] || { echo "FAIL ($1): $OUT lacks $f"; return 1; }; done
}
for i in $(seq 1 "$KILLS"); do
  [ $((i % 2)) = 0 ] && rm -rf "$OUT"          # half the runs replace earlier results
  if [ $((i % 2)) = 0 ]; then delay=$(( RANDOM % (full_ms + 1) )); else delay=$(( full_ms * 7 / 10 + RANDOM % (full_ms * 4 / 10 + 1) )); fi
  "$BIN" "${ARGS[@]}" >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  # What the kill left.
  if [ -d "$OUT" ]; then
    check_complete "after kill $i at ${delay} ms" || fail=$((fail + 1))
    if [ -e "$OUT/INCOMPLETE" ]; then
      if head -1 "$OUT/INCOMPLETE" | grep -Eq "^$HEAD"; then window=$((window + 1)); else echo "FAIL (kill $i): foreign INCOMPLETE in $OUT"; fail=$((fail + 1)); fi
    else completes=$((completes + 1)); fi
  fi
  if [ -d "$OUT.partial" ]; then
    partials=$((partials + 1))
    if ! head -1 "$OUT.partial/INCOMPLETE" 2>/dev/null | grep -Eq "^$HEAD"; then
      others=$(ls -A "$OUT.partial" | grep -v '^\..*\.tmp-' || true)
      [ -z "$others" ] || { echo "FAIL (kill $i at ${delay} ms): $OUT.partial holds [$(echo $others)] and no marker"; fail=$((fail + 1)); }
    fi
  fi
  ls -A "$T" | grep -q '^\.out\.old-' && asides=$((asides + 1))
  # The next run must succeed and leave complete results only.
  "$BIN" "${ARGS[@]}" >"$T/rerun.log" 2>&1 || { echo "FAIL (kill $i at ${delay} ms): the rerun exited $?:"; tail -3 "$T/rerun.log"; fail=$((fail + 1)); continue; }
  check_complete "rerun after kill $i" || fail=$((fail + 1))
  [ -e "$OUT/INCOMPLETE" ] && { echo "FAIL (kill $i): marker left after a rerun"; fail=$((fail + 1)); }
  [ -e "$OUT.partial" ] && { echo "FAIL (kill $i): $OUT.partial left after a rerun"; fail=$((fail + 1)); }
  [ -e "$T/.out.lock" ] && { echo "FAIL (kill $i): lock file left after a rerun"; fail=$((fail + 1)); }
  ls -A "$T" | grep -q '^\.out\.old-' && { echo "FAIL (kill $i): replaced results left aside after a rerun"; fail=$((fail + 1)); }
done
echo "kill-test: $KILLS kills: $partials left OUT.partial, $completes a complete OUT, $window a complete OUT still marked (commit cut after the rename; finished by the next run), $asides replaced results moved aside (put back or removed by the next run); $fail failure(s)"
[ "$fail" = 0 ]
