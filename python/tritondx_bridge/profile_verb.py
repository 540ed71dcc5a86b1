"""The `profile` verb: Nsight Compute on one launch of each kernel, exported as CSV.

Request: {"task": path, "kernel"?: name, "out_dir": dir, "timeout"?: seconds (600), "ncu"?: path}
Reply:   {"kernels": [{"kernel", "files": {"report", "details", "raw", "source"}, "log",
                       "problems": [...]}], "ncu_version"}

For each kernel (the one named, else every @triton.jit kernel of the task) the task's launch()
runs twice under ncu (python -m tritondx_bridge.launch_once: the first call compiles and warms
up) and ncu profiles the kernel's second launch with the full section set and the SASS source
page. The report is then exported with `ncu -i REPORT --csv --page details|raw` and
`--page source --csv --print-source sass`, the files the C++ side parses.

Errors: "no-ncu" (ncu not found), "no-counter-permission" (ERR_NVGPUCTRPERM: the driver lets
only admins read the performance counters), "no-gpu", "no-kernel-profiled" (the kernel was not
launched twice), "timeout", "profile-failed" (anything else; the detail holds ncu's log tail).
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from .errors import BridgeError

PAGES = (
    ("details", ["--csv", "--page", "details"]),
    ("raw", ["--csv", "--page", "raw"]),
    ("source", ["--csv", "--page", "source", "--print-source", "sass"]),
)

NO_GPU_PATTERNS = (
    "no CUDA GPUs are available",
    "Found no NVIDIA driver",
    "Torch not compiled with CUDA enabled",
    "CUDA driver initialization failed",
    "No CUDA-capable device",
)

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_ncu(explicit=None):
    """The ncu executable: the request's, else PATH, else the usual CUDA install folders."""
    if explicit:
        return explicit if os.path.isfile(explicit) and os.access(explicit, os.X_OK) else None
    found = shutil.which("ncu")
    if found:
        return found
    for folder in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if folder:
            candidate = os.path.join(folder, "bin", "ncu")
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return None


def _run(cmd, timeout, log_path=None, stdout_path=None, env=None, cwd=None):
    """Runs cmd in its own process group; on timeout kills the group. Returns (rc, output)."""
    out = open(stdout_path, "w") if stdout_path else subprocess.PIPE
    try:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE if stdout_path else subprocess.STDOUT,
                                text=True, env=env, cwd=cwd, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.communicate()
            raise
    finally:
        if stdout_path:
            out.close()
    text = stderr if stdout_path else stdout
    text = text or ""
    if log_path:
        with open(log_path, "w") as f:
            f.write(text)
    return proc.returncode, text


def _tail(text, n=40):
    return "\n".join(text.strip().splitlines()[-n:])


def _classify(log, kernel):
    """A BridgeError for an ncu run that produced no report."""
    for line in log.splitlines():
        if "ERR_NVGPUCTRPERM" in line:
            said = re.sub(r"^==\w+==\s*", "", line.strip())
            return BridgeError("no-counter-permission",
                               f"Nsight Compute may not read the GPU performance counters: {said} (run as root, or "
                               "load the driver with NVreg_RestrictProfilingToAdminUsers=0)", detail={"log": _tail(log)})
    for pattern in NO_GPU_PATTERNS:
        if pattern in log:
            return BridgeError("no-gpu", f"the task could not run on a CUDA GPU under ncu: {pattern}",
                               detail={"log": _tail(log)})
    if "No kernels were profiled" in log:
        return BridgeError("no-kernel-profiled",
                           f"ncu profiled no launch of '{kernel}': launch() must launch it (ncu skips the "
                           "first launch, from the warm-up call)", detail={"log": _tail(log)})
    return BridgeError("profile-failed", f"ncu produced no report for '{kernel}': {_tail(log, 3)}",
                       detail={"log": _tail(log)})


def _kernel_names(task_path, requested):
    if requested:
        return [requested]
    from .task import load_task
    return list(load_task(task_path).kernels)


def _safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def profile_verb(request):
    task_path = request.get("task")
    if not task_path:
        raise BridgeError("bad-request", "the profile verb needs \"task\"")
    task_path = os.path.abspath(task_path)
    if not os.path.isfile(task_path):
        raise BridgeError("task-not-found", f"task file not found: {task_path}", file=task_path)
    out_dir = os.path.abspath(request.get("out_dir") or os.path.join(os.path.dirname(task_path), "ncu"))
    timeout = float(request.get("timeout", 600))
    ncu = find_ncu(request.get("ncu"))
    if not ncu:
        raise BridgeError("no-ncu", "Nsight Compute (ncu) was not found on PATH, in $CUDA_HOME/bin or "
                          "/usr/local/cuda/bin: install Nsight Compute or put ncu on PATH", file=task_path)
    os.makedirs(out_dir, exist_ok=True)
    deadline = time.monotonic() + timeout
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_PARENT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONUNBUFFERED", "1")

    def left():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise BridgeError("timeout", f"ncu did not finish within {timeout:g} s", file=task_path)
        return remaining

    version = ""
    try:
        _, version = _run([ncu, "--version"], min(left(), 60))
        version = version.strip().splitlines()[-1] if version.strip() else ""
    except (subprocess.TimeoutExpired, OSError):
        pass

    kernels = []
    for name in _kernel_names(task_path, request.get("kernel")):
        base = os.path.join(out_dir, _safe(name))
        report = base + ".ncu-rep"
        if os.path.exists(report):
            os.remove(report)
        log_path = base + ".ncu.log"
        cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "-k", f"regex:^{re.escape(name)}$",
               "--launch-skip", "1", "--launch-count", "1", "--set", "full", "--import-source", "yes",
               "-f", "-o", base, sys.executable, "-m", "tritondx_bridge.launch_once", task_path]
        try:
            _, log = _run(cmd, left(), log_path=log_path, env=env, cwd=os.path.dirname(task_path))
        except subprocess.TimeoutExpired:
            raise BridgeError("timeout", f"ncu did not finish profiling '{name}' within {timeout:g} s",
                              file=task_path) from None
        if not os.path.isfile(report):
            error = _classify(log, name)
            # With several kernels, one that is never launched is not an error for the others.
            if error.kind == "no-kernel-profiled" and not request.get("kernel"):
                continue
            raise error
        files = {"report": report}
        problems = []
        for page, args in PAGES:
            path = f"{base}.{page}.csv"
            try:
                rc, err = _run([ncu, "-i", report] + args, left(), stdout_path=path, env=env)
            except subprocess.TimeoutExpired:
                raise BridgeError("timeout", f"ncu did not export the {page} page within {timeout:g} s",
                                  file=task_path) from None
            if rc == 0 and os.path.getsize(path) > 0:
                files[page] = path
            else:
                problems.append(f"the {page} page could not be exported (ncu exit {rc}): {_tail(err, 3)}")
        if len(files) == 1:
            raise BridgeError("profile-failed", f"ncu exported no page of the report for '{name}'",
                              file=task_path, detail={"problems": problems})
        kernels.append({"kernel": name, "files": files, "log": log_path, "problems": problems})
    if not kernels:
        raise BridgeError("no-kernel-profiled", "ncu profiled none of the task's kernels: launch() must launch "
                          "them (ncu skips each kernel's first launch, from the warm-up call)", file=task_path)
    return {"kernels": kernels, "ncu_version": version}
