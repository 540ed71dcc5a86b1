#!/usr/bin/env python3
"""Regenerates the IR fixtures under tests/fixtures/triton-3.6.0/ with the project's bridge.

Usage: .venv/bin/python tools/gen_fixtures.py [TASK.py ...]
Without arguments: every example under examples/ and every task under tests/fixtures/tasks/.
Each task gets a folder named after the file with, per launched kernel, the stages
(.ttir .ttgir .llir .ptx .sass), the per-pass dump (.passes.txt) and compile.json,
the bridge's reply with paths made relative to the folder.
"""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "triton-3.6.0")
KEEP = (".ttir", ".ttgir", ".llir", ".ptx", ".sass", ".passes.txt")
# Stage files larger than this are kept gzipped (the large matmul's pass dump is 11 MB, 0.55 MB
# gzipped), so the repository stays small.
GZIP_ABOVE = 4 * 1024 * 1024


def generate(task):
    name = os.path.splitext(os.path.basename(task))[0]
    dest = os.path.join(OUT, name)
    with tempfile.TemporaryDirectory() as tmp:
        request = {"task": task, "out_dir": tmp, "pass_dumps": True, "remarks": True}
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", "compile"], input=json.dumps(request),
                              capture_output=True, text=True, env=env, timeout=600)
        reply = json.loads(proc.stdout)
        if not reply.get("ok"):
            raise SystemExit(f"{task}: {reply['error']['message']}")
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        for kernel in reply["kernels"]:
            files = {}
            for stage, path in kernel["files"].items():
                if path.endswith(KEEP):
                    name = os.path.basename(path)
                    if os.path.getsize(path) > GZIP_ABOVE:  # read_file (core/file.h) decompresses
                        name += ".gz"
                        with open(path, "rb") as src, open(os.path.join(dest, name), "wb") as raw, \
                                gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
                            shutil.copyfileobj(src, out)
                    else:
                        shutil.copy(path, os.path.join(dest, name))
                    files[stage] = name
            kernel["files"] = files
            kernel["compile_seconds"] = None  # not reproducible; kept out of the fixture
        reply["task"] = os.path.relpath(reply["task"], ROOT)
        with open(os.path.join(dest, "compile.json"), "w") as f:
            json.dump(reply, f, indent=1, sort_keys=True)
            f.write("\n")
        # What L0 reads: the captured launch and the AST (no compile).
        proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", "capture"], input=json.dumps({"task": task}),
                              capture_output=True, text=True, env=env, timeout=600)
        capture = json.loads(proc.stdout)
        if not capture.get("ok"):
            raise SystemExit(f"{task}: {capture['error']['message']}")
        with open(os.path.join(dest, "capture.json"), "w") as f:
            json.dump(capture, f, sort_keys=True)
            f.write("\n")
    print(f"{name}: {', '.join(sorted(os.listdir(dest)))}")


def main(argv):
    tasks = argv[1:] or sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")) +
                               glob.glob(os.path.join(ROOT, "tests", "fixtures", "tasks", "*.py")))
    for task in tasks:
        generate(os.path.abspath(task))


if __name__ == "__main__":
    main(sys.argv)
