#!/usr/bin/env bash
# Installs everything, builds, and runs the main job on a bundled example (no GPU, no LLM key):
# the diagnosis of the kernel, then the optimization loop (recipes; measured on a GPU if one is
# visible, otherwise compiled and re-diagnosed only). Usage: scripts/demo.sh [TASK.py]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
example=${1:-examples/softmax.py}
build/tritondx diagnose "$example"
echo
exec build/tritondx optimize "$example" --max-candidates 8
