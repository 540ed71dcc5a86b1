#!/usr/bin/env bash
# Installs everything (scripts/setup.sh), builds, and runs every test: the Python tests (GPU
# tests skip without a GPU), the C++ unit, end-to-end and rule-fixture tests through ctest,
# then a short fuzzing run of every parser (scripts/fuzz.sh; TRITONDX_FUZZ_SECONDS per target).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
echo "test: python tests"
.venv/bin/python -m pytest -q -n auto tests/python tests/gpu
echo "test: C++ unit, end-to-end, rule, recipe, store, integrity and optimize tests"
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600
echo "test: fuzzing the parsers"
scripts/fuzz.sh "${TRITONDX_FUZZ_SECONDS:-10}"
