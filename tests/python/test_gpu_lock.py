"""gpu_lock between real processes: shared holders overlap, an exclusive holder waits for them
and is alone, a waiting exclusive request goes before later shared ones, and nothing is locked
when TRITONDX_GPU_LOCK is unset; each process counts the time it waited, and the bridge's replies
report it. Each process appends "<tag> <event>" lines to one log."""
import os
import subprocess
import sys
import time
import json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HOLDER = r'''
import os, sys, time
from tritondx_bridge import gpu_lock
tag, mode, seconds, log = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
def event(what):
    with open(log, "a") as f:
        f.write(f"{tag} {what}\n")
event("want")
with gpu_lock.hold(mode):
    event(f"got {gpu_lock.current()}")
    if len(sys.argv) > 5:  # a nested request
        with gpu_lock.hold(sys.argv[5]):
            event(f"nested {gpu_lock.current()}")
    time.sleep(seconds)
    event("release")
event(f"after {gpu_lock.current()}")
event(f"waited {gpu_lock.waited_seconds():.3f}")
'''


def start(tmp_path, tag, mode, seconds, lock=True, nested=None):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop("TRITONDX_GPU_LOCK", None)
    if lock:
        env["TRITONDX_GPU_LOCK"] = str(tmp_path / "gpu0.lock")
    args = [sys.executable, "-c", HOLDER, tag, mode, str(seconds), str(tmp_path / "events.log")]
    return subprocess.Popen(args + ([nested] if nested else []), env=env)


def events(tmp_path):
    path = tmp_path / "events.log"
    return path.read_text().splitlines() if path.exists() else []


def wait_for(tmp_path, line, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if line in events(tmp_path):
            return
        time.sleep(0.02)
    raise AssertionError(f"{line!r} never happened; events: {events(tmp_path)}")


def finish(*procs):
    for p in procs:
        assert p.wait(timeout=60) == 0


# Holders that must outlast another process's start-up hold for SLOW seconds (a loaded CI machine
# may take a second or more to start Python).
SLOW = 4.0


def test_shared_holders_overlap(tmp_path):
    a = start(tmp_path, "A", "shared", SLOW)
    wait_for(tmp_path, "A got shared")
    b = start(tmp_path, "B", "shared", 0.1)
    wait_for(tmp_path, "B release")
    assert "A release" not in events(tmp_path)  # B came and went while A held the GPU
    finish(a, b)


def test_exclusive_waits_for_shared_and_is_alone(tmp_path):
    a = start(tmp_path, "A", "shared", 1.0)
    wait_for(tmp_path, "A got shared")
    b = start(tmp_path, "B", "exclusive", 1.0)
    wait_for(tmp_path, "B got exclusive")
    c = start(tmp_path, "C", "shared", 0.1)
    finish(a, b, c)
    log = events(tmp_path)
    assert log.index("A release") < log.index("B got exclusive")
    assert log.index("B release") < log.index("C got shared")


def test_waiting_exclusive_goes_before_later_shared(tmp_path):
    a = start(tmp_path, "A", "shared", SLOW)
    wait_for(tmp_path, "A got shared")
    b = start(tmp_path, "B", "exclusive", 0.5)
    wait_for(tmp_path, "B want")
    time.sleep(0.5)  # B now waits for A, holding the turnstile
    c = start(tmp_path, "C", "shared", 0.1)
    finish(a, b, c)
    log = events(tmp_path)
    assert log.index("C want") < log.index("A release")  # C asked while A still held it
    assert log.index("B release") < log.index("C got shared")


def test_nesting_keeps_exclusive_and_restores(tmp_path):
    a = start(tmp_path, "A", "exclusive", 0.1, nested="shared")
    b = start(tmp_path, "B", "shared", 0.1, nested="exclusive")
    finish(a, b)
    log = events(tmp_path)
    assert "A nested exclusive" in log and "A after None" in log
    assert "B nested exclusive" in log and "B after None" in log
    # While A holds the GPU alone, B holds nothing (B drops its shared hold to upgrade).
    a_in, a_out = log.index("A got exclusive"), log.index("A release")
    for held_by_b in ("B nested exclusive", "B release"):
        assert not a_in < log.index(held_by_b) < a_out


def test_unset_means_no_lock(tmp_path):
    a = start(tmp_path, "A", "exclusive", SLOW, lock=False)
    wait_for(tmp_path, "A got None")
    b = start(tmp_path, "B", "exclusive", 0.1, lock=False)
    wait_for(tmp_path, "B release")
    assert "A release" not in events(tmp_path)
    finish(a, b)


def waited(tmp_path, tag):
    return next(float(e.split()[2]) for e in events(tmp_path) if e.startswith(f"{tag} waited "))


def test_waiting_time_is_counted(tmp_path):
    a = start(tmp_path, "A", "exclusive", SLOW)
    wait_for(tmp_path, "A got exclusive")
    b = start(tmp_path, "B", "exclusive", 0.1)
    finish(a, b)
    log = events(tmp_path)
    assert log.index("A release") < log.index("B got exclusive")
    assert waited(tmp_path, "A") < 1.0
    assert waited(tmp_path, "B") > 1.0  # B asked while A still had over a second to hold


def test_bridge_replies_say_how_long_they_waited(tmp_path):
    def ast_reply(lock):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        env.pop("TRITONDX_GPU_LOCK", None)
        if lock:
            env["TRITONDX_GPU_LOCK"] = str(tmp_path / "gpu0.lock")
        request = {"task": os.path.join(ROOT, "examples", "softmax.py")}
        proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", "ast"], input=json.dumps(request),
                              capture_output=True, text=True, env=env, timeout=300)
        return json.loads(proc.stdout)
    with_lock = ast_reply(True)
    assert with_lock["ok"] and with_lock["gpu_lock_wait_s"] == 0.0  # the ast verb takes no GPU lock
    without = ast_reply(False)
    assert without["ok"] and "gpu_lock_wait_s" not in without
