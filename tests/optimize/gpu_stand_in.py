#!/usr/bin/env python3
"""A stand-in GPU for the optimizer's end-to-end tests on a machine without one.

Used as TRITONDX_PYTHON: `gpu_stand_in.py -m tritondx_bridge <verb>` answers the GPU verbs
(`run`, `sweep`, `compare`, `device`) the way the bridge does, in the same reply format
(python/tritondx_bridge/run_verb.py, sweep_verb.py, compare_verb.py, device_verb.py), and hands
every other invocation (capture, compile, ast, ...) to the real interpreter named by
STAND_IN_PYTHON. Every kernel is reported correct. Its time
is made up from the launch parameters in the task's source, so a test knows which variant is
fastest:

    1.0 ms, x 0.6 when some launch passes num_warps=8, x 0.9 when some launch passes num_stages=4;
    a kernel that calls tl.split: x 1.2 (split-interleaved-pairs alone), x 0.2 with TILE_ROWS
    (rows-per-program on top), the way the H200 ranked them on the interleaved rotary entry

STAND_IN_FACTORS, a JSON list of [regex, factor] pairs, multiplies the time by each factor whose
regex matches the source (re.search), on top of the above; a test ranks its own candidates with it.
STAND_IN_REQUEST_LOG names a file each GPU verb's request is appended to (a JSON line
{"verb", "request"}), and `correctness.references` says what a real run would have checked
against (the task's `reference`, and the initial kernel when the request names one).
STAND_IN_WRONG, a JSON list of [regex, where] pairs: a source the regex matches is right at
make_inputs but wrong at test input 1 (where = "test-input") or at the call audited inside the
timing loop (where = "audit"), in the bridge's reply format (verify.py, timing_audit.py).
STAND_IN_COMPARE_FACTORS, the same kind of list, applies in the `compare` verb only: a gain the
sweep measured that interleaved rounds do not see.
STAND_IN_AUTOTUNE, a JSON object {kernel: index}, is the config each autotuned kernel's autotuner
"chose" (the run reply's "autotune").
STAND_IN_MIN_BYTES sets the bytes the roofline floor is computed from (default 100 MB: a 1 ms
kernel is then far from its floor). With STAND_IN_GPU_WAIT_S set, every reply says it waited that long for the shared GPU (the
bridge's gpu_lock_wait_s). Each reply's "device" (and the `device` verb's) says it is this stand-in,
or names STAND_IN_DEVICE when that is set; nothing it returns is a measurement.
"""
import json
import os
import re
import sys

DEVICE = os.environ.get("STAND_IN_DEVICE") or "stand-in GPU (tests/optimize/gpu_stand_in.py)"


def fake_ms(source, factors_variable="STAND_IN_FACTORS"):
    ms = 1.0
    if re.search(r"num_warps\s*=\s*8\b", source):
        ms *= 0.6
    if re.search(r"num_stages\s*=\s*4\b", source):
        ms *= 0.9
    if "tl.split(" in source:
        ms *= 0.2 if "TILE_ROWS" in source else 1.2
    for variable in dict.fromkeys(("STAND_IN_FACTORS", factors_variable)):
        for pattern, factor in json.loads(os.environ.get(variable, "[]")):
            if re.search(pattern, source):
                ms *= factor
    return ms


def run_reply(request):
    with open(request["task"]) as f:
        source = f.read()
    ms = fake_ms(source)
    references = (["the reference"] if re.search(r"^def reference\(", source, re.M) else []) + \
        (["the initial kernel"] if request.get("initial_task") else [])
    timing = {"median_ms": ms, "p10_ms": ms * 0.99, "p90_ms": ms * 1.01, "mean_ms": ms, "min_ms": ms * 0.98,
              "reps": 100, "cv": 0.01}
    reply = {"device": DEVICE, "torch": "none", "correctness": {"passed": True, "draws": [{"failures": []}],
                                                                   "references": references},
             "timing": timing, "graph": None, "recheck": {"passed": True},
             "min_bytes": int(os.environ.get("STAND_IN_MIN_BYTES", 100_000_000)),
             "flops": 1_000_000_000, "input_sets": 1,
             "phases_s": {"correctness": 0.25, "timing": 0.125, "recheck": 0.0625, "graph": 0.03125}}
    if os.environ.get("STAND_IN_AUTOTUNE"):
        reply["autotune"] = {k: {"index": i, "configs": i + 1, "config": {}}
                             for k, i in json.loads(os.environ["STAND_IN_AUTOTUNE"]).items()}
    if os.environ.get("STAND_IN_GPU_WAIT_S"):  # as if each call had waited for other workers' timed sections
        reply["gpu_lock_wait_s"] = float(os.environ["STAND_IN_GPU_WAIT_S"])
    if request.get("integrity") is not None:
        reply["integrity"] = {"passed": True, "violations": [], "notes": ["stand-in GPU: no runtime checks ran"]}
    for pattern, where in json.loads(os.environ.get("STAND_IN_WRONG", "[]")):
        if re.search(pattern, source):
            wrong(reply, where)
    return reply


def wrong(reply, where):
    if where == "test-input":
        failure = {"output": 0, "test_input": 1, "message": "at test input 1 (1000 float32): against the reference: "
                   "output 0: 24 of 1000 elements out of tolerance (stand-in GPU)"}
        reply["correctness"] = dict(reply["correctness"], passed=False, test_inputs=3, test_inputs_checked=2)
        reply["correctness"]["draws"] = [{"test_input": None, "passed": True, "failures": []},
                                         {"test_input": 0, "passed": True, "failures": []},
                                         {"test_input": 1, "passed": False, "failures": [failure]}]
        reply["timing"] = reply["recheck"] = None
    elif where == "audit":
        reply["audit"] = {"iteration": 37, "reps": 100, "passed": False, "failures": [
            {"output": 0, "message": "the call audited at iteration 37 of 100 in the timing loop (fresh inputs): "
             "against the reference: output 0: 4096 of 4096 elements out of tolerance (stand-in GPU)"}]}
    else:
        raise ValueError(f"STAND_IN_WRONG: unknown place {where!r}")


def compare_reply(request):
    """Each round runs 2% slower than the one before (drift common to the round), with a little
    noise per version, around fake_ms of each version's source."""
    rounds = int(request.get("rounds", 7))
    tasks = []
    for i, path in enumerate(request.get("tasks", [])):
        with open(path) as f:
            ms = fake_ms(f.read(), "STAND_IN_COMPARE_FACTORS")
        tasks.append({"task": path, "round_ms": [ms * (1 + 0.02 * r) * (1 + 0.005 * ((r * 7 + i * 3) % 5 - 2))
                                                 for r in range(rounds)]})
    return {"device": DEVICE, "rounds": rounds, "input_sets": 1, "tasks": tasks}


def main(argv):
    if argv[1:3] == ["-m", "tritondx_bridge"] and len(argv) == 4 and argv[3] in ("run", "sweep", "device", "compare"):
        request = json.loads(sys.stdin.read() or "{}")
        if os.environ.get("STAND_IN_REQUEST_LOG"):
            with open(os.environ["STAND_IN_REQUEST_LOG"], "a") as log:
                log.write(json.dumps({"verb": argv[3], "request": request}) + "\n")
        if argv[3] == "run":
            reply = {"ok": True, **run_reply(request)}
        elif argv[3] == "compare":
            reply = {"ok": True, **compare_reply(request)}
        elif argv[3] == "device":
            reply = {"ok": True, "device": DEVICE, "capability": [9, 0]}
        else:
            reply = {"ok": True, "results": [{"task": t, "ok": True, "wall_s": 0.5,
                                              "reply": run_reply({"task": t, "initial_task": request.get("initial_task")})}
                                             for t in request.get("tasks", [])]}
        sys.stdout.write(json.dumps(reply) + "\n")
        return 0
    real = os.environ["STAND_IN_PYTHON"]
    os.execv(real, [real] + argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
