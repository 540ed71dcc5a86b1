#!/usr/bin/env bash
# The GPU parts of issue 28 (trust), each writing under $OUT as it goes:
#   1. tests/gpu (the random-point timing audit's test among them) -> gpu-tests.log
#   2. every corpus and suite task verified at make_inputs and its test shapes on the GPU
#      (tools/verify_shapes.py, in parallel shards) -> shapes-*.jsonl
#   3. `tritondx optimize --gpu on` killed at random moments mid-evaluation and resumed
#      (tools/kill_resume.py) -> kill-resume.json
# Builds build-dev/tritondx first (tools/device_build.sh; carry .deps).
set -u
export TRITONDX_PYTHON=python3 PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/card.txt"
bash tools/device_build.sh || exit 1

start=$(date +%s)
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu > "$out/gpu-tests.log" 2>&1
echo "tests/gpu exit $? in $(( $(date +%s) - start )) s: $(tail -1 "$out/gpu-tests.log")"

start=$(date +%s)
shards=${TDX_SHAPE_SHARDS:-6}
ls bench/corpus/*/*.py bench/suite/*/*.py | grep -v '/_' | awk -v n="$shards" '{print > ("/tmp/shard-" NR % n)}'
for i in $(seq 0 $((shards - 1))); do
  timeout 400 python3 tools/verify_shapes.py --device cuda --timeout 180 --out "$out/shapes-$i.jsonl" \
      $(cat /tmp/shard-$i) > "$out/shapes-$i.log" 2>&1 &
done
wait
cat "$out"/shapes-*.log | grep -v ': passed' || true
echo "shapes: $(cat "$out"/shapes-*.log | grep -c ': passed') passed of $(cat "$out"/shapes-*.jsonl | wc -l) in $(( $(date +%s) - start )) s"

start=$(date +%s)
timeout 300 python3 tools/kill_resume.py --binary build-dev/tritondx --task examples/softmax.py --gpu on \
    --kills 5 --delays 4,30 --max-candidates 4 --out /tmp/kill-resume --report "$out/kill-resume.json" \
    > "$out/kill-resume.log" 2>&1
echo "kill-resume exit $? in $(( $(date +%s) - start )) s"
tail -c 600 "$out/kill-resume.log"
