#!/usr/bin/env bash
# Builds build-dev/tritondx on the GPU machine from the carried tree: the -dev packages it
# needs travel in .deps/ (tools/make_deps.sh). The binary finds the carried shared libraries
# through the build tree's RPATH, so nothing else (Python included) sees them.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
start=$(date +%s)
if [ ! -x build-dev/tritondx ]; then
  cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/.deps" \
        -DTRITONDX_BUILD_BENCH=OFF -DTRITONDX_BUILD_TESTS=OFF > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
fi
cmake --build build-dev -j "$(nproc)" --target tritondx > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
if ldd build-dev/tritondx | grep 'not found'; then exit 1; fi
echo "build-dev/tritondx built in $(( $(date +%s) - start )) s on $(nproc) cores"
