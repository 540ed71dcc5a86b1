"""Verifies each given task at make_inputs' shapes and at its test inputs (make_test_inputs, or
make_small_inputs) through the bridge's verify verb, one process per task, and appends one JSON
line per task to --out as it goes (a cut run keeps what it measured; a rerun skips tasks done).
Usage: python3 tools/verify_shapes.py --out results.jsonl [--device cuda] [--timeout 120] TASK...
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def verify(task, device, timeout, draws=None):
    """`draws`: make_inputs draws (None: the verb's default; 0: the test inputs alone)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    request = {"task": task, "device": device}
    if draws is not None:
        request["draws"] = draws
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "tritondx_bridge", "verify"],
                              input=json.dumps(request), capture_output=True, text=True,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"task": task, "error": f"no reply in {timeout} s"}
    seconds = round(time.perf_counter() - start, 2)
    try:
        reply = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"task": task, "seconds": seconds, "error": f"exit {done.returncode}: {done.stderr[-600:]}"}
    if not reply.get("ok"):
        return {"task": task, "seconds": seconds, "error": reply.get("error", {}).get("message", "failed")}
    c = reply["correctness"]
    failures = [f["message"] for d in c["draws"] for f in d["failures"]]
    return {"task": task, "seconds": seconds, "device": reply.get("device"), "passed": c["passed"],
            "shapes": [d["inputs"] for d in c["draws"]], "test_inputs": c["test_inputs"],
            "test_inputs_checked": c["test_inputs_checked"], "failures": failures[:3]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("tasks", nargs="+")
    args = parser.parse_args()
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as f:
            done = {json.loads(line)["task"] for line in f if line.strip()}
    for task in args.tasks:
        if task in done:
            continue
        line = verify(task, args.device, args.timeout)
        with open(args.out, "a") as f:
            f.write(json.dumps(line) + "\n")
        status = "error: " + line["error"] if "error" in line else ("passed" if line["passed"] else "FAILED")
        print(f"{task}: {status} ({line.get('test_inputs_checked', 0)} test inputs, {line.get('seconds', '?')} s)",
              flush=True)


if __name__ == "__main__":
    main()
