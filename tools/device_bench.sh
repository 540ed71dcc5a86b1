#!/usr/bin/env bash
# `tritondx bench` on the H200 (issue 6): builds build-dev/ (tools/device_build.sh), runs the
# bench with the arguments given (e.g. --shard 1/8) into bench/results/ of the carried tree, and
# tars bench/results/ into $OUT/bench.tgz (the device returns at most 8 files). Entries finished
# in an earlier call travel with the tree and are kept; TDX_BENCH_SECONDS bounds this call.
# bench/results/store.sqlite is not in git, and an untracked store is not carried unless it is
# named in the call's carry (it counts towards the 64 MiB); entries resume from their
# entry.partial.json without it (only a search cut mid-way needs its run in the store); merge
# the returned store into the local one with `tritondx bench --merge`. `bash tools/device_bench.sh --confirm` only times the
# kernels of the entries already measured on this card again, in interleaved rounds.
# TDX_BENCH_OUT names another results folder (e.g. results/corpus with --suite bench/corpus).
# Before the bench, bench/ceilings.py --fill-target measures the card's ceilings into its
# targets/<card>.json when that description has none yet (targets/ is tarred with the results).
# TDX_CALL_SECONDS, the device call's own limit (run's timeout_s), caps the bench so that the
# archive is written before that limit strikes, however long the build took: a cold build took
# 127 s on 2026-12-07 and the call's limit cut a 460 s bench before its tar, losing the entry it
# had finished (results/gpu/corpus-2026-12-07-s27/README.md).
set -u
export TRITONDX_PYTHON=python3 PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}
call_start=$(date +%s)
bash tools/device_build.sh || exit 1
# A card measured for the first time gets its ceilings into its target description (returned as
# $OUT/ceilings.json and in the tarred results' targets/ copy), so its roofline is its own.
python3 bench/ceilings.py --fill-target --out "$out/ceilings.json" > /dev/null 2> "$out/ceilings.log" || tail -5 "$out/ceilings.log"
results=${TDX_BENCH_OUT:-bench/results}
mkdir -p "$results"
bench_seconds=${TDX_BENCH_SECONDS:-420}
if [ -n "${TDX_CALL_SECONDS:-}" ]; then
  # 20 s for the tar and the transfer's start after the bench ends.
  left=$(( TDX_CALL_SECONDS - ($(date +%s) - call_start) - 20 ))
  if [ "$left" -lt "$bench_seconds" ]; then
    echo "bench capped at $left s: the call's limit is $TDX_CALL_SECONDS s and $(( $(date +%s) - call_start )) s went before it"
    bench_seconds=$left
  fi
  [ "$bench_seconds" -gt 0 ] || { echo "no time left for the bench in this call"; exit 1; }
fi
timeout "$bench_seconds" ./build-dev/tritondx bench --gpu on --out "$results" "$@" > "$out/bench.log" 2>&1
status=$?
echo "bench exit $status (124: cut by TDX_BENCH_SECONDS or TDX_CALL_SECONDS; finished entries are kept)"
# A cut run: the entry it was in (its last progress line), which the next call resumes.
[ "$status" = 124 ] && grep -E '^\[[0-9]+/[0-9]+\] .* \.\.\.$' "$out/bench.log" | tail -n 1 | sed 's/^/cut during: /'
tar czf "$out/bench.tgz" "$results" targets
grep -E '^\[|interleaved rounds' "$out/bench.log" | grep -v ' \.\.\.$' | tail -n 45
