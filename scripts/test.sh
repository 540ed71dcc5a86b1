#!/usr/bin/env bash
# Installs everything (scripts/setup.sh), builds, and runs every test: the Python tests (GPU
# tests skip without a GPU), then the C++ unit, end-to-end and rule-fixture tests through
# ctest. Tests listed in tests/known-failures.txt are excluded (open problems, see there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
echo "test: python tests"
.venv/bin/python -m pytest -q tests/python tests/gpu
exclude=$(grep -v '^#' tests/known-failures.txt | sed '/^$/d' | sed 's/[][\.*^$()+?{}|]/\\&/g; s/.*/^&$/' | paste -sd'|')
echo "test: C++ unit, end-to-end and rule tests (excluding $(grep -vc '^#' tests/known-failures.txt) known failures)"
ctest --test-dir build --output-on-failure -j 2 --timeout 600 ${exclude:+-E "$exclude"}
