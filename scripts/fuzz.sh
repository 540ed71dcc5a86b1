#!/usr/bin/env bash
# Fuzzes the IR, profile and LLM-reply parsers with libFuzzer (fuzz/), seeded with the committed
# fixtures, for SECONDS per target (default 20), and prints each target's executions and coverage.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# An input that breaks a target is saved under build-fuzz/crashes/<target>/; after fixing the
# parser, commit it to fuzz/regressions/<target>/, where the unit tests replay it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-20}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(ttgir llvm_ir ptx sass pass_dump ncu_csv llm_reply)

clang=${TRITONDX_FUZZ_CXX:-clang++-19}
if ! command -v "$clang" >/dev/null; then
  echo "fuzz: $clang not found (scripts/setup.sh installs clang-19 and libclang-rt-19-dev)" >&2
  exit 1
fi
cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$clang" >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null

seeds_of() {
  case $1 in
    ttgir) find tests/fixtures -name '*.ttgir' -o -name '*.ttir' ;;
    llvm_ir) find tests/fixtures -name '*.llir' ;;
    ptx) find tests/fixtures -name '*.ptx' ;;
    sass) find tests/fixtures -name '*.sass' ;;
    pass_dump) find tests/fixtures -name '*.passes.txt' ;;
    ncu_csv) find tests/fixtures -name '*.csv' ;;
    llm_reply) find tests/fixtures/llm_replies -type f ;;
  esac
}

status=0
printf '%-10s %10s %10s %8s %8s %s\n' target seconds execs cov ft result
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t crashes=build-fuzz/crashes/$t
  mkdir -p "$corpus" "$crashes"
  # libFuzzer truncates seeds to -max_len; the largest fixtures are several MB.
  seeds_of "$t" | while read -r f; do cp -n "$f" "$corpus/"; done
  [ -d "fuzz/regressions/$t" ] && cp -n fuzz/regressions/"$t"/* "$corpus/" 2>/dev/null || true
  log=build-fuzz/$t.log
  if build-fuzz/fuzz_"$t" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$crashes/" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (see $log, inputs in $crashes)"
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
  printf '%-10s %10s %10s %8s %8s %s\n' "$t" "$seconds" "$execs" "$cov" "$ft" "$result"
done
exit $status
