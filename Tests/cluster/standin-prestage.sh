#!/usr/bin/env bash
# STAND-IN for `prestage sweep` / `prestage merge`, used by slurm-e2e.sh until the real commands
# exist. It is NOT the simulator: it only has the same command-line contract, so that the Slurm
# and Kubernetes plumbing can be proven today. Replace it by pointing PRESTAGE_E2E_BIN at the real
# `prestage` binary (see slurm-e2e.sh); then delete this file.
#
#   standin-prestage.sh sweep FILE [--shard i/N] --out DIR
#       FILE: one parameter point per non-empty line. Shard i of N (0 <= i < N) takes the
#       contiguous block of points [floor(i*P/N), floor((i+1)*P/N)) of the P points; without
#       --shard it takes all of them. Writes DIR/results.tsv with one line per point,
#       "INDEX<TAB>POINT<TAB>SHA256(POINT)", deterministic. Writes DIR.partial first and renames it
#       to DIR when complete; refuses an existing DIR.
#   standin-prestage.sh merge DIR... --out DIR
#       Concatenates each DIR/results.tsv in the order given into DIR/results.tsv.
#
# So merge(shard 0/N, ..., shard N-1/N) is byte-identical to the unsharded sweep.
# Exit codes as the real CLI: 0 ok, 1 failed to write, 2 bad input.
set -euo pipefail

points_max=100000
shards_max=10000

usage() {
  echo "standin-prestage: $*" >&2
  echo "usage: standin-prestage.sh sweep FILE [--shard i/N] --out DIR | merge DIR... --out DIR" >&2
  exit 2
}

# publish STAGING DIR: rename the finished staging directory to its final name.
publish() {
  mv -T "$1" "$2" || { echo "standin-prestage: cannot rename $1 to $2" >&2; exit 1; }
}

sweep() {
  local file="" shard="" out=""
  while [ "$#" -gt 0 ]; do
    case "$1" in
      --shard) [ "$#" -ge 2 ] || usage "--shard: expected i/N, found nothing"; shard=$2; shift 2 ;;
      --out) [ "$#" -ge 2 ] || usage "--out: expected DIR, found nothing"; out=$2; shift 2 ;;
      -*) usage "unknown option '$1'" ;;
      *) [ -z "$file" ] || usage "sweep: expected one FILE, found '$file' and '$1'"; file=$1; shift ;;
    esac
  done
  [ -n "$file" ] || usage "sweep: expected FILE"
  [ -n "$out" ] || usage "sweep: expected --out DIR"
  [ -r "$file" ] || usage "sweep: FILE '$file' is not readable"
  [ ! -e "$out" ] || usage "--out: '$out' already exists"

  local points=()
  mapfile -t points < <(grep -v '^[[:space:]]*$' "$file")
  local count=${#points[@]}
  [ "$count" -ge 1 ] && [ "$count" -le "$points_max" ] \
    || usage "sweep: FILE '$file': expected 1...$points_max points, found $count"

  local index=0 shards=1
  if [ -n "$shard" ]; then
    [[ "$shard" =~ ^([0-9]+)/([0-9]+)$ ]] || usage "--shard: expected i/N with integers, found '$shard'"
    index=$((10#${BASH_REMATCH[1]}))
    shards=$((10#${BASH_REMATCH[2]}))
    [ "$shards" -ge 1 ] && [ "$shards" -le "$shards_max" ] && [ "$index" -lt "$shards" ] \
      || usage "--shard: expected 0 <= i < N <= $shards_max, found '$shard'"
  fi
  local first=$((index * count / shards)) end=$(((index + 1) * count / shards))

  local staging="$out.partial"
  rm -rf "$staging"
  mkdir -p "$staging" || { echo "standin-prestage: cannot create $staging" >&2; exit 1; }
  local k digest
  for ((k = first; k < end; k++)); do
    digest=$(printf '%s' "${points[k]}" | sha256sum)
    printf '%d\t%s\t%s\n' "$k" "${points[k]}" "${digest%% *}"
  done > "$staging/results.tsv"
  publish "$staging" "$out"
}

merge() {
  local dirs=() out=""
  while [ "$#" -gt 0 ]; do
    case "$1" in
      --out) [ "$#" -ge 2 ] || usage "--out: expected DIR, found nothing"; out=$2; shift 2 ;;
      -*) usage "unknown option '$1'" ;;
      *) dirs+=("$1"); shift ;;
    esac
  done
  [ "${#dirs[@]}" -ge 1 ] || usage "merge: expected at least one shard DIR"
  [ -n "$out" ] || usage "merge: expected --out DIR"
  [ ! -e "$out" ] || usage "--out: '$out' already exists"
  local d
  for d in "${dirs[@]}"; do
    [ -r "$d/results.tsv" ] || usage "merge: '$d' has no readable results.tsv"
  done
  local staging="$out.partial"
  rm -rf "$staging"
  mkdir -p "$staging" || { echo "standin-prestage: cannot create $staging" >&2; exit 1; }
  for d in "${dirs[@]}"; do cat "$d/results.tsv"; done > "$staging/results.tsv"
  publish "$staging" "$out"
}

[ "$#" -ge 1 ] || usage "expected a command"
command=$1
shift
case "$command" in
  sweep) sweep "$@" ;;
  merge) merge "$@" ;;
  *) usage "unknown command '$command'" ;;
esac
