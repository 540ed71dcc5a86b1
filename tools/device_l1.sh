#!/usr/bin/env bash
# L1 on the H200 (issue 4): ceilings, then for every example `tritondx run` twice (the
# timing spread of the same kernel) and `tritondx diagnose --profile --all-levels` (JSON and
# Markdown). Builds build-dev/tritondx first (tools/device_build.sh). Results are tarred under $OUT.
set -u
export TRITONDX_PYTHON=python3 PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}
res=$out/results
mkdir -p "$res"
bash tools/device_build.sh || exit 1
{ echo "card: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; date -u; } > "$res/machine.txt"
python3 bench/ceilings.py --out "$res/ceilings.json" > /dev/null 2>&1 && cat "$res/ceilings.json"
for t in vector_add softmax matmul; do
  for i in 1 2; do
    ./build-dev/tritondx run examples/$t.py --format json -o "$res/$t.run$i.json" 2> "$res/$t.run$i.err"
    python3 -c "import json; r=json.load(open('$res/$t.run$i.json')); t=r['measurement']['timing']; f=r['roofline']; print('$t run$i', t['median_ms'], t['p10_ms'], t['p90_ms'], t['reps'], round(f['fraction'],3), f['bound'])"
  done
  ./build-dev/tritondx diagnose examples/$t.py --profile --all-levels --report-dir "$res/$t" -o /dev/null --artifacts /tmp/art_$t 2> "$res/$t.diagnose.err"
  python3 - "$res/$t/diagnosis.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[1].split('/')[-2], d['reached'], '|', d['stop_reason'])
for k in d['kernels']:
    for f in k['findings'][:40]:
        print('  ', f['level'], f['rule'], 'line', f['loc']['line'], '-', f['symptom'][:110])
PY
  cp -r /tmp/art_$t/ncu "$res/ncu_$t" 2>/dev/null
done
cd "$out" && tar czf results.tgz results && rm -rf results
