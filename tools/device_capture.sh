#!/usr/bin/env bash
# Issue 24 on the GPU, in two verbs (each call writes one archive, $OUT/capture.tar.gz, refreshed
# after every step, so a call cut short still brings back what it finished):
#   capture  -> `tritondx capture --gpu on` of
#               liger     examples/capture/liger_train.py (Liger-Kernel, installed from its wheel in .whl/)
#               compiled  examples/capture/compiled_block.py (a torch.compile'd transformer block, trained)
#               kb-NAME   each KernelBench problem in examples/kernelbench/ (--kernelbench)
#             and tests/gpu/test_capture_gpu.py; TDX_CAPTURES picks some (default all). With
#             TDX_DEADLINE (seconds), the time left optimizes each KernelBench capture's top task.
#   optimize DIR...  -> `tritondx optimize --gpu on` over the top TDX_TASKS (4) tasks of each
#             captured folder (results of an earlier capture call, committed), with
#             TDX_MAX_SECONDS (25) and TDX_MAX_CANDIDATES (4) per task; writes program-gain.json.
# Carry .deps and .whl (tools/make_deps.sh; .whl: pip download --no-deps liger-kernel==0.8.5 -d .whl).
set -u
export TRITONDX_PYTHON=python3 PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}
work=/tmp/capture-run
began=$(date +%s)
mkdir -p "$out" "$work"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$work/card.txt"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site:$PWD/python || exit 1
OUT=/tmp/build-logs bash tools/device_build.sh || { tail -20 /tmp/build-logs/*.log; exit 1; }
bin=$PWD/build-dev/tritondx
pack() { tar czf "$out/capture.tar.gz" --exclude='*/artifacts' --exclude='*.sqlite*' -C "$work" . ; }

capture() {
  local name=$1 start=$(date +%s)
  shift
  timeout "${TDX_CAPTURE_SECONDS:-240}" "$bin" capture --gpu on --out "$work/$name" "$@" > "$work/$name.log" 2>&1
  echo "$name: capture exit $? in $(( $(date +%s) - start )) s"
  head -n 16 "$work/$name.log"
  pack
}

optimize_dir() {
  local dir=$1 name tasks start
  name=$(basename "$dir")
  tasks=$(python3 - "$dir" "${TDX_TASKS:-4}" <<'PY'
import json, os, sys
folder, top = sys.argv[1], int(sys.argv[2])
kernels = json.load(open(os.path.join(folder, "capture.json")))["kernels"]
print(" ".join([os.path.join(folder, os.path.basename(k["task"])) for k in kernels if k.get("task")][:top]))
PY
)
  start=$(date +%s)
  timeout "${TDX_OPTIMIZE_SECONDS:-280}" "$bin" optimize --gpu on --no-profile --max-seconds "${TDX_MAX_SECONDS:-25}" \
      --max-candidates "${TDX_MAX_CANDIDATES:-4}" --out "$work/$name-optimize" $tasks > "$work/$name-optimize.log" 2>&1
  echo "$name: optimize exit $? in $(( $(date +%s) - start )) s"
  tail -n 14 "$work/$name-optimize.log"
  pack
}

case ${1:-capture} in
capture)
  for c in ${TDX_CAPTURES:-liger compiled kb-rmsnorm_residual kb-softmax_temperature kb-linear_gelu_residual}; do
    case $c in
      liger) capture liger -- python examples/capture/liger_train.py ;;
      compiled) capture compiled -- python examples/capture/compiled_block.py ;;
      kb-*) capture "$c" --kernelbench "examples/kernelbench/${c#kb-}.py" ;;
    esac
  done
  start=$(date +%s)
  TRITONDX_RESULTS_DIR=$work timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_capture_gpu.py \
      > "$work/gpu-tests-capture.log" 2>&1
  echo "tests/gpu/test_capture_gpu.py exit $? in $(( $(date +%s) - start )) s: $(tail -1 "$work/gpu-tests-capture.log")"
  pack
  # What time is left before TDX_DEADLINE (seconds since the call began) optimizes the top task of
  # each KernelBench capture: torch.compile's own kernel is the initial one.
  for dir in "$work"/kb-*/; do
    left=$(( ${TDX_DEADLINE:-0} - ($(date +%s) - began) ))
    [ "$left" -gt 60 ] || break
    TDX_TASKS=1 TDX_OPTIMIZE_SECONDS=$(( left - 20 < 150 ? left - 20 : 150 )) optimize_dir "${dir%/}"
  done ;;
optimize)
  shift
  for dir in "$@"; do optimize_dir "$dir"; done ;;
esac

