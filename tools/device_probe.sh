#!/usr/bin/env bash
# First GPU session for L1 (issue 4): ceilings, `run` on every example, and Nsight Compute
# exports of each example kernel in every format the parser may read. Writes under $OUT.
set -u
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}
mkdir -p "$out/ncu"
python3 bench/ceilings.py --out "$out/ceilings.json" 2>&1 | tail -12
for t in vector_add softmax matmul; do
  echo "{\"task\": \"examples/$t.py\"}" | python3 -m tritondx_bridge run > "$out/run_$t.json" 2> "$out/run_$t.err"
  python3 -c "import json,sys; r=json.load(open('$out/run_$t.json')); print('$t', r.get('ok'), r.get('error',{}).get('message'), (r.get('correctness') or {}).get('passed'), (r.get('timing') or {}).get('median_ms'), (r.get('graph') or {}).get('median_ms'))"
done
ncu --version | tail -1
for t in vector_add:add_kernel softmax:softmax_kernel matmul:matmul_kernel; do
  task=${t%%:*}; k=${t##*:}
  timeout 300 ncu --clock-control none --target-processes all -k "regex:^${k}$" --launch-skip 1 --launch-count 1 \
     --set full --import-source yes -f -o "$out/ncu/$task" python3 -m tritondx_bridge.launch_once examples/$task.py > "$out/ncu/$task.ncu.log" 2>&1
  echo "ncu $task rc=$?"; tail -3 "$out/ncu/$task.ncu.log"
  ncu -i "$out/ncu/$task.ncu-rep" --csv --page details > "$out/ncu/$task.details.csv" 2> "$out/ncu/$task.details.err"
  ncu -i "$out/ncu/$task.ncu-rep" --csv --page raw > "$out/ncu/$task.raw.csv" 2> "$out/ncu/$task.raw.err"
  ncu -i "$out/ncu/$task.ncu-rep" --csv --page source --print-source sass > "$out/ncu/$task.source.csv" 2> "$out/ncu/$task.source.err"
  ncu -i "$out/ncu/$task.ncu-rep" --page details --print-details all > "$out/ncu/$task.details-all.txt" 2>&1
  wc -c "$out/ncu/$task".* | head -8
  head -c 300 "$out/ncu/$task.source.err"
done
cd "$out" && tar czf ncu.tgz ncu && rm -rf ncu
