#!/usr/bin/env bash
# Installs everything (scripts/setup.sh), builds, and runs every test: the C++ unit and
# end-to-end tests through ctest, then the Python tests (GPU tests skip without a GPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
echo "test: python tests"
.venv/bin/python -m pytest -q tests/python tests/gpu
echo "test: C++ unit and end-to-end tests"
ctest --test-dir build --output-on-failure -j 2
