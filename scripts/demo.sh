#!/usr/bin/env bash
# Installs everything, builds, and runs the main job on a bundled example (no GPU, no LLM key).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
example=${1:-examples/softmax.py}
exec build/tritondx diagnose "$example"
