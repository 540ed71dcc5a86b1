#!/usr/bin/env bash
# The benchmark over several hosts with Slurm: a job array, one shard per array task (one GPU
# each), then one merge. Submit from the repository root after scripts/setup.sh:
#   jid=$(sbatch --parsable --array=1-8 tools/slurm_bench.sh [bench options...])
#   sbatch --dependency=afterany:$jid tools/slurm_bench.sh --merge
# Array task i runs `tritondx bench --shard i/N` into bench/results/shards/i/; the merge job
# copies every shard's entry results and merges their stores into bench/results/, then writes
# the summary. A shard cut short (time limit, preemption) resumes when resubmitted.
# TDX_DRY_RUN=1 prints the command instead of running it.
#SBATCH --job-name=tritondx-bench
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=16
#SBATCH --time=04:00:00
#SBATCH --output=bench/results/slurm-%A_%a.log
set -euo pipefail
root=${SLURM_SUBMIT_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
tdx=${TRITONDX:-$root/build/tritondx}
results=${TDX_RESULTS:-$root/bench/results}
run() {
  if [ -n "${TDX_DRY_RUN:-}" ]; then printf '%q ' "$@"; echo; else "$@"; fi
}
if [ "${1:-}" = "--merge" ]; then
  shift
  shopt -s nullglob
  shards=("$results"/shards/*/)
  [ ${#shards[@]} -gt 0 ] || { echo "no shard results under $results/shards" >&2; exit 1; }
  run "$tdx" bench --merge "${shards[@]%/}" --out "$results" "$@"
  exit
fi
: "${SLURM_ARRAY_TASK_ID:?run under sbatch --array=1-N (or set SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT)}"
count=${SLURM_ARRAY_TASK_COUNT:-${SLURM_ARRAY_TASK_MAX:?}}
run "$tdx" bench --shard "$SLURM_ARRAY_TASK_ID/$count" --gpu on --out "$results/shards/$SLURM_ARRAY_TASK_ID" "$@"
