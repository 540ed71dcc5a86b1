"""The `compile` verb: every stage of every kernel the task launches, without a GPU.

Request: {"task": path, "out_dir": dir, "kernel": name?, "arch": 90?, "pass_dumps": bool?,
          "remarks": bool?, "what_if": {...}?, "autotune_config": int | {kernel: int}?}
Reply:   {"kernels": [{"kernel", "launch", "files": {stage: path}, "metadata", "resources",
                       "remarks": [...], "compile_seconds"}], "launches": [...]}
"""
import os
import re
import shutil
import tempfile
import time

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler.errors import CompilationError

from . import disasm
from .capture import capture_launches
from .cuda_emulation import emulated_cuda
from .errors import BridgeError
from .fdcapture import captured_fds
from .pass_dump import process_dump
from .task import load_task, task_json

_DIAG_RE = re.compile(r"^(?P<file>[^\n:]+\.py):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|remark|note): "
                      r"(?P<message>.*)$")

STAGES = ("ttir", "ttgir", "llir", "ptx")

def parse_diagnostics(text):
    """MLIR diagnostics (`file:line:col: severity: message` plus indented/continuation lines)."""
    out = []
    for raw in text.splitlines():
        m = _DIAG_RE.match(raw.strip())
        if m:
            if m["severity"] == "note" and out:
                # "operand defined here": the note's own location is where a fix belongs.
                out[-1].setdefault("notes", []).append(
                    {"file": m["file"], "line": int(m["line"]), "col": int(m["col"]), "message": m["message"]})
                continue
            out.append({"file": m["file"], "line": int(m["line"]), "col": int(m["col"]),
                        "severity": m["severity"], "message": m["message"]})
        elif out and raw.strip() and not raw.startswith("//"):
            out[-1]["message_tail"] = (out[-1].get("message_tail", "") + raw.strip() + "\n")[:4000]
    return out


def _root_message(error):
    """The innermost cause of a (possibly nested) CompilationError: what actually went wrong."""
    seen = 0
    while error is not None and seen < 16:
        if getattr(error, "error_message", None):
            return error.error_message
        cause = error.__cause__ or error.__context__
        if cause is None:
            return None if isinstance(error, CompilationError) else f"{type(error).__name__}: {error}"
        error = cause
        seen += 1
    return None


def _compile_error(task, kernel_info, error, log):
    def_line = kernel_info.def_line if kernel_info else 0
    node = getattr(error, "node", None)
    line = col = 0
    if node is not None and hasattr(node, "lineno") and def_line:
        line = def_line + node.lineno - 1
        col = getattr(node, "col_offset", 0) + 1
    message = _root_message(error)
    if not message:
        lines = [l for l in str(error).strip().splitlines() if l.strip() and l.strip() != "^"]
        message = lines[-1] if lines else type(error).__name__
    diags = parse_diagnostics(log)
    errors = [d for d in diags if d["severity"] == "error"]
    if not line and errors:
        line, col = errors[0]["line"], errors[0]["col"]
        message = errors[0]["message"]
    source_line = task.source.splitlines()[line - 1] if 0 < line <= len(task.source.splitlines()) else ""
    return BridgeError("compile-error", f"Triton could not compile {kernel_info.name if kernel_info else 'the kernel'}: "
                       f"{message}", file=task.path, line=line, col=col,
                       detail={"triton_message": str(error), "source_line": source_line, "log": log[-8000:],
                               "diagnostics": diags})


def _env(updates):
    saved = {k: os.environ.get(k) for k in updates}
    for k, v in updates.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    return saved


def compile_launch(task, launch, target, out_dir, pass_dumps, remarks, index):
    kernel_info = task.kernels.get(launch.name)
    stem = os.path.join(out_dir, f"{launch.name}.{index}" if index else launch.name)
    cache_dir = tempfile.mkdtemp(prefix="tritondx-cache-")
    dump = process_dump() if pass_dumps else None
    dump_offset = dump.size() if dump else 0
    passes_path = stem + ".passes.txt"
    has_passes = False
    env = {"TRITON_CACHE_DIR": cache_dir, "TRITON_ALWAYS_COMPILE": "1", "TRITON_DUMP_PTXAS_LOG": "1",
           "MLIR_ENABLE_DUMP": "1" if pass_dumps else None,
           "MLIR_DUMP_PATH": dump.path if dump else None,
           "MLIR_ENABLE_DIAGNOSTICS": "warnings,remarks" if remarks else None}
    saved = _env(env)
    src = triton.compiler.ASTSource(launch.fn, launch.signature, launch.constexprs, launch.attrs)
    start = time.perf_counter()
    try:
        with captured_fds(1, 2) as log:
            try:
                compiled = triton.compile(src, target=target, options=launch.options.__dict__)
                error = None
            except Exception as e:  # noqa: BLE001 - CompilationError, MLIR pass failures, ptxas errors
                error = e
        if dump:
            has_passes = dump.finish_compile(dump_offset, passes_path if error is None else None)
    finally:
        _env(saved)
        shutil.rmtree(cache_dir, ignore_errors=True)
    seconds = time.perf_counter() - start
    if error is not None:
        raise _compile_error(task, kernel_info, error, log["text"]) from error

    files = {}
    for stage in STAGES:
        path = f"{stem}.{stage}"
        with open(path, "w") as f:
            f.write(compiled.asm[stage])
        files[stage] = path
    cubin = f"{stem}.cubin"
    with open(cubin, "wb") as f:
        f.write(compiled.asm["cubin"])
    files["cubin"] = cubin
    notes = []
    try:
        sass = disasm.disassemble(cubin)
        with open(f"{stem}.sass", "w") as f:
            f.write(sass)
        files["sass"] = f"{stem}.sass"
    except (OSError, RuntimeError, Exception) as e:  # noqa: BLE001 - SASS is optional evidence
        notes.append(f"no SASS: {e}")
    if has_passes:
        files["passes"] = passes_path
    with open(f"{stem}.compile.log", "w") as f:
        f.write(log["text"])
    files["log"] = f"{stem}.compile.log"

    md = compiled.metadata
    resources = disasm.resource_usage(cubin)
    resources.update(disasm.parse_ptxas_log(log["text"]))
    diagnostics = parse_diagnostics(log["text"])
    return {
        "kernel": launch.name,
        "launch": launch.to_json(),
        "files": files,
        "metadata": {"num_warps": md.num_warps, "num_stages": md.num_stages, "num_ctas": md.num_ctas,
                     "shared": md.shared, "maxnreg": md.maxnreg, "hash": md.hash, "arch": md.arch,
                     "target": f"{target.backend}:{target.arch}", "triton_version": triton.__version__},
        "resources": resources,
        "remarks": [d for d in diagnostics if d["severity"] in ("remark", "warning")],
        "notes": notes,
        "compile_seconds": round(seconds, 4),
    }


def compile_verb(request):
    out_dir = request.get("out_dir")
    if not out_dir:
        raise BridgeError("bad-request", "compile needs out_dir")
    os.makedirs(out_dir, exist_ok=True)
    target = GPUTarget("cuda", int(request.get("arch", 90)), 32)
    with emulated_cuda() as emulation:
        task = load_task(request.get("task"))
        launches, _ = capture_launches(task, emulation, target, what_if=request.get("what_if"),
                                       autotune_config=request.get("autotune_config"))
    wanted = request.get("kernel")
    if wanted and wanted not in task.kernels:
        raise BridgeError("unknown-kernel", f"the task has no kernel named '{wanted}' "
                          f"(kernels: {', '.join(sorted(task.kernels))})", file=task.path)
    seen = {}
    kernels = []
    for launch in launches:
        if wanted and launch.name != wanted:
            continue
        key = launch.key()
        if key in seen:
            continue
        index = sum(1 for k in seen if k[0] == launch.name)
        seen[key] = True
        kernels.append(compile_launch(task, launch, target, out_dir, bool(request.get("pass_dumps")),
                                      bool(request.get("remarks")), index))
    if not kernels:
        raise BridgeError("unknown-kernel", f"launch() never launched kernel '{wanted}'", file=task.path)
    reply = {"task": task.path, "kernels": kernels, "launches": [l.to_json() for l in launches],
             "cuda_emulation": emulation.to_json()}
    if request.get("include_task"):
        # Saves the C++ side a second bridge start (Python, torch and triton imports) for the task itself.
        reply["task_info"] = {"path": task.path, "source": task.source,
                              "kernels": [k.to_json() for k in task.kernels.values()], "task": task_json(task)}
    return reply
