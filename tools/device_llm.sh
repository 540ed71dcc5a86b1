#!/usr/bin/env bash
# The GPU machine's two parts of the LLM evidence ablation (issue 27; docs/llm.md). The model
# cannot travel to the GPU machine, so the ablation runs here in two halves around the CPU run:
#   bash tools/device_llm.sh record TASK...   each task's GPU recording (run.json and Nsight
#       Compute's details/raw/source CSVs) into $OUT/recordings.tgz, for the L1 findings whose
#       symptoms the `symptom` and `full` arms send (optimize --recording)
#   TDX_ABLATION=results/llm-ablation/DATE bash tools/device_llm.sh verify
#       every candidate of that ablation that passed the CPU checks, verified against its task's
#       reference and timed against the original in interleaved rounds (tools/llm_ablation.py
#       verify), into $OUT/gpu.json
# Builds build-dev/ first (tools/device_build.sh); carry .deps (tools/make_deps.sh).
set -u
export TRITONDX_PYTHON=python3 PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}
mkdir -p "$out"
bash tools/device_build.sh || exit 1
case "${1:-}" in
  record)
    shift
    rec=/tmp/recordings
    for task in "$@"; do
      name=$(basename "$(dirname "$task")")__$(basename "$task" .py)
      [ "$(dirname "$task")" = examples ] && name=$(basename "$task" .py)
      mkdir -p "$rec/$name"
      ./build-dev/tritondx run "$task" --format json -o "$rec/$name/run.json" 2> "$rec/$name/run.err" ||
        { echo "$name: run failed: $(tail -2 "$rec/$name/run.err")"; continue; }
      ./build-dev/tritondx diagnose "$task" --profile --all-levels -o "$rec/$name/diagnosis.json" --format json \
        --artifacts "/tmp/art_$name" 2> "$rec/$name/diagnose.err" || echo "$name: diagnose failed: $(tail -2 "$rec/$name/diagnose.err")"
      for page in details raw source; do
        csv=$(ls /tmp/art_"$name"/ncu/*."$page".csv 2> /dev/null | head -1)
        [ -n "$csv" ] && cp "$csv" "$rec/$name/$page.csv"
      done
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); t=r['measurement']['timing']; print(sys.argv[2], t['median_ms'], 'ms', r['measurement']['device'])" \
        "$rec/$name/run.json" "$name" 2>&1 | tail -1
      ls "$rec/$name"
    done
    tar czf "$out/recordings.tgz" -C /tmp recordings ;;
  verify)
    dir=${TDX_ABLATION:?set TDX_ABLATION to the ablation folder}
    timeout "${TDX_VERIFY_SECONDS:-480}" python3 tools/llm_ablation.py verify --out "$dir" --tritondx ./build-dev/tritondx
    echo "verify exit $?"
    cp "$dir/gpu.json" "$out/gpu.json" ;;
  *) echo "usage: tools/device_llm.sh record TASK... | verify" >&2; exit 2 ;;
esac
