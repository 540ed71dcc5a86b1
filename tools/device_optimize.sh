#!/usr/bin/env bash
# `tritondx optimize` on the H200 (issue 5) for the examples given (default: all three), with
# the GPU measuring every candidate. Expects the tree carried with .deps (tools/make_deps.sh);
# builds build-dev/ (tools/device_build.sh). Results (report.{md,json,html}, optimized kernel, store) go to
# $OUT/optimize-<example>/; a one-line summary per example is printed last.
set -u
export TRITONDX_PYTHON=python3 PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}
budget=${TDX_MAX_CANDIDATES:-8}
bash tools/device_build.sh || exit 1
examples=${*:-vector_add softmax matmul}
for t in $examples; do
  dir=$out/optimize-$t
  ./build-dev/tritondx optimize examples/$t.py --gpu on --max-candidates "$budget" --out "$dir" \
      > "$dir.log" 2>&1 || echo "$t: optimize failed (see $dir.log)"
  rm -rf "$dir/artifacts"
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in $examples; do
  python3 - "$out/optimize-$t/report.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[1], "no report:", e); sys.exit(0)
c = {n["id"]: n for n in r["candidates"]}
o, b = c[r["original"]], c[r["best"]]
print(r["task"].split("/")[-1], "original %.4f ms" % o["score"].get("median_ms", 0), "best %.4f ms" % b["score"].get("median_ms", 0),
      "speedup %s" % (round(r["speedup"], 3) if r["speedup"] else None), "candidates", len(r["candidates"]) - 1,
      "path", [c[i]["recipe"] for i in r["best_path"][1:]])
PY
done
