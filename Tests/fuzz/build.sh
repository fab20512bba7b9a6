#!/usr/bin/env bash
# Builds the libFuzzer targets (Tests/fuzz/targets/*.swift) with swiftc, outside SwiftPM: each
# package module a target needs is compiled once into .build/fuzz/ as a static library with
# coverage and AddressSanitizer (`-sanitize=fuzzer,address`) and the package's invariant checks on
# (PRESTAGE_INVARIANTS, as in a debug build), then each harness is linked against them.
# SwiftPM never sees these files: Tests/fuzz is no target's directory in Package.swift.
#
#   Tests/fuzz/build.sh [TARGET...]     (default: every target; prints the binaries' paths)
#
# A module is rebuilt only when one of its sources, or a module it imports, is newer than it.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=.build/fuzz
SWIFTC=${SWIFTC:-swiftc}
mkdir -p "$OUT/mod" "$OUT/lib" "$OUT/bin"

# -O: the fuzzer's throughput; -package-name: one name for every module here, so `package`
# declarations are visible across them as under SwiftPM; -enable-testing: harnesses may
# `@testable import` to reach a module's internal helpers.
FLAGS=(-O -wmo -swift-version 6 -parse-as-library -sanitize=fuzzer,address -package-name prestage
       -enable-testing -DPRESTAGE_INVARIANTS -I "$OUT/mod" -I Sources/CGSL -I Sources/CZlib)

# Each module's package dependencies (Package.swift's, restricted to what the targets need).
declare -A DEPS=(
  [PreloadKit]="" [SimKernel]="" [Stochastic]="" [InfraModel]="SimKernel Stochastic" [SimStats]="Stochastic"
  [PushModel]="InfraModel SimKernel Stochastic SimStats PreloadKit"
  [ScenarioFormat]="PushModel InfraModel Stochastic PreloadKit" [LogFit]="Stochastic"
)
# Each fuzz target's modules (in build order).
declare -A TARGET_MODULES=(
  [payload]="PreloadKit" [manifest]="PreloadKit" [url]="PreloadKit" [headers]="PreloadKit" [session]="PreloadKit"
  [scenario]="PreloadKit SimKernel Stochastic InfraModel SimStats PushModel ScenarioFormat"
  [logs]="Stochastic LogFit"
)
# Shared harness sources besides targets/<target>.swift.
declare -A TARGET_SUPPORT=(
  [payload]="PreloadKitChecks" [manifest]="PreloadKitChecks" [url]="PreloadKitChecks" [headers]="PreloadKitChecks"
  [session]="PreloadKitChecks" [scenario]="" [logs]=""
)
ALL_TARGETS=(payload manifest url headers session scenario logs)

declare -A BUILT=()
build_module() {
  local m=$1 lib="$OUT/lib/lib$1.a" stale=0 d
  [[ -n ${BUILT[$m]:-} ]] && return 0
  for d in ${DEPS[$m]}; do build_module "$d"; [[ "$OUT/lib/lib$d.a" -nt "$lib" ]] && stale=1; done
  [[ -f $lib ]] || stale=1
  [[ -n $(find "Sources/$m" -name '*.swift' -newer "$lib" 2>/dev/null | head -1) ]] && stale=1
  if (( stale )); then
    echo "fuzz build: module $m" >&2
    "$SWIFTC" "${FLAGS[@]}" -module-name "$m" -emit-module -emit-module-path "$OUT/mod/$m.swiftmodule" \
      -emit-library -static -o "$lib" $(find "Sources/$m" -name '*.swift' | sort)
  fi
  BUILT[$m]=1
}

targets=("$@"); (( ${#targets[@]} )) || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
  [[ -n ${TARGET_MODULES[$t]:-} ]] || { echo "fuzz build: unknown target $t (targets: ${ALL_TARGETS[*]})" >&2; exit 2; }
  libs=()
  for m in ${TARGET_MODULES[$t]}; do build_module "$m"; libs+=("$OUT/lib/lib$m.a"); done
  bin="$OUT/bin/fuzz-$t"
  srcs=("Tests/fuzz/targets/$t.swift" Tests/fuzz/targets/Support.swift)
  for s in ${TARGET_SUPPORT[$t]}; do srcs+=("Tests/fuzz/targets/$s.swift"); done
  newer=0; [[ -f $bin ]] || newer=1
  for f in "${srcs[@]}" "${libs[@]}"; do [[ $f -nt $bin ]] && newer=1; done
  if (( newer )); then
    echo "fuzz build: target $t" >&2
    # The libraries in reverse build order (dependents first) for the static link; then the C libraries.
    rev=(); for ((i=${#libs[@]}-1; i>=0; i--)); do rev+=("${libs[i]}"); done
    "$SWIFTC" "${FLAGS[@]}" -module-name "fuzz_$t" "${srcs[@]}" "${rev[@]}" \
      -lgsl -lgslcblas -lm -lz -use-ld=lld -o "$bin"
  fi
  echo "$bin"
done
