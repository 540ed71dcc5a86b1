#!/usr/bin/env bash
# Installs every dependency of tritondx on a fresh Debian machine and builds it.
# Usage: scripts/setup.sh            (idempotent; skips what is already there)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

apt_packages=(cmake ninja-build g++ python3-venv libcli11-dev nlohmann-json3-dev libfmt-dev
              libsqlitecpp-dev libsqlite3-dev libgtest-dev libgmock-dev libbenchmark-dev
              libcpp-httplib-dev libssl-dev zlib1g-dev patch
              clang-19 libclang-rt-19-dev)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python=${TRITONDX_PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($python --version)"
  "$python" -m venv .venv
fi
if ! .venv/bin/python -c 'import triton, torch' 2>/dev/null ||
   [ python/requirements.txt -nt .venv/.requirements-installed ]; then
  echo "setup: installing python/requirements.txt into .venv"
  .venv/bin/pip install -q --no-cache-dir --disable-pip-version-check -r python/requirements.txt
  touch .venv/.requirements-installed
fi

echo "setup: building (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
