#!/usr/bin/env bash
# Collects the headers, CMake configs and libraries tritondx builds against into .deps/, so
# the tree can be carried to a machine that has CMake and a compiler but none of the -dev
# packages (the GPU machine): build there with -DCMAKE_PREFIX_PATH=$PWD/.deps.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps=$root/.deps
lib=/usr/lib/x86_64-linux-gnu
rm -rf "$deps"
mkdir -p "$deps/include" "$deps/lib/x86_64-linux-gnu/cmake" "$deps/share/cmake"
for h in nlohmann fmt CLI gtest gmock SQLiteCpp httplib.h sqlite3.h sqlite3ext.h brotli openssl zlib.h zconf.h; do cp -r "/usr/include/$h" "$deps/include/"; done
for c in fmt GTest SQLiteCpp; do cp -r "$lib/cmake/$c" "$deps/lib/x86_64-linux-gnu/cmake/"; done
for c in CLI11 nlohmann_json; do cp -r "/usr/share/cmake/$c" "$deps/share/cmake/"; done
cp -a "$lib"/libfmt.so* "$lib"/libgtest*.a "$lib"/libgmock*.a "$lib"/libSQLiteCpp.a "$lib"/libsqlite3.so* \
      "$lib"/libcpp-httplib.so* "$lib"/libbrotli*.so* "$lib"/libssl.so* "$lib"/libcrypto.so* "$lib"/libz.so* \
      "$deps/lib/x86_64-linux-gnu/"
cp -r /usr/include/x86_64-linux-gnu/openssl/. "$deps/include/openssl/"
grep -qx '/.deps/' "$root/.git/info/exclude" 2>/dev/null || echo '/.deps/' >> "$root/.git/info/exclude"
du -sh "$deps"
