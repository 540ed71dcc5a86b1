#!/usr/bin/env bash
# The GPU parts of issue 28 (trust), each writing under $OUT as it goes (8 files at most come back):
#   1. tests/gpu, or the files in TDX_GPU_TESTS (the random-point timing audit's test among them)
#      -> gpu-tests.log
#   2. every corpus and suite task verified at make_inputs and its test shapes on the GPU
#      (tools/verify_shapes.py, in parallel shards; tasks already in TDX_SHAPES_DONE, a
#      shapes.jsonl of an earlier call, are kept and skipped) -> shapes.jsonl, shapes.log
#   3. `tritondx optimize --gpu on` killed at random moments mid-evaluation and resumed
#      (tools/kill_resume.py) -> kill-resume.json, kill-resume.log
#   4. `tritondx capture --gpu on` of a torch.compile program -> capture-compiled.txt
# Builds build-dev/tritondx first (tools/device_build.sh; carry .deps).
set -u
export TRITONDX_PYTHON=python3 PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python TRITONDX_BINARY=$PWD/build-dev/tritondx
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/card.txt"
OUT=/tmp/build-logs bash tools/device_build.sh || { tail -20 /tmp/build-logs/*.log; exit 1; }

start=$(date +%s)
TRITONDX_RESULTS_DIR=$out timeout 300 python3 -m pytest -q -p no:cacheprovider ${TDX_GPU_TESTS:-tests/gpu} \
    > "$out/gpu-tests.log" 2>&1
echo "tests/gpu exit $? in $(( $(date +%s) - start )) s: $(tail -1 "$out/gpu-tests.log")"

# What capture --gpu on makes of torch.compile's kernels beside a @triton.jit one (issue 24).
(cd tests/fixtures/capture && timeout 240 ../../../build-dev/tritondx capture --gpu on --out /tmp/capture-compiled \
    -- python compiled_program.py > "$out/capture-compiled.txt" 2>&1; echo "exit $?" >> "$out/capture-compiled.txt")
tail -12 "$out/capture-compiled.txt"

start=$(date +%s)
shards=${TDX_SHAPE_SHARDS:-8}
[ -n "${TDX_SHAPES_DONE:-}" ] && cp "$TDX_SHAPES_DONE" "$out/shapes.jsonl"
[ "${TDX_SHAPES_SECONDS:-240}" = 0 ] || {
ls bench/corpus/*/*.py bench/suite/*/*.py | grep -v '/_' | awk -v n="$shards" '{print > ("/tmp/shard-" NR % n)}'
for i in $(seq 0 $((shards - 1))); do
  timeout "${TDX_SHAPES_SECONDS:-240}" python3 tools/verify_shapes.py --device cuda --timeout 180 \
      --out "$out/shapes.jsonl" $(cat /tmp/shard-$i) > "/tmp/shapes-$i.log" 2>&1 &
done
wait
cat /tmp/shapes-*.log > "$out/shapes.log"
grep -v ': passed' "$out/shapes.log" || true
echo "shapes: $(grep -c '"passed": true' "$out/shapes.jsonl") passed of $(wc -l < "$out/shapes.jsonl") in $(( $(date +%s) - start )) s"
}

start=$(date +%s)
[ "${TDX_KILL_SECONDS:-300}" = 0 ] && exit 0
timeout "${TDX_KILL_SECONDS:-300}" python3 tools/kill_resume.py --binary build-dev/tritondx --task examples/softmax.py \
    --gpu on --kills "${TDX_KILLS:-3}" --delays "${TDX_KILL_DELAYS:-15,45}" --max-candidates 3 --out /tmp/kill-resume \
    --report "$out/kill-resume.json" > "$out/kill-resume.log" 2>&1
echo "kill-resume exit $? in $(( $(date +%s) - start )) s"
tail -c 600 "$out/kill-resume.log"
