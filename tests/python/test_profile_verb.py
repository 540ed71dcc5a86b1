"""The `profile` verb without a GPU: ncu missing, and a stand-in ncu that behaves like the real
one (writes a report, exports the recorded CSVs of tests/fixtures/ncu) or fails like it."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "ncu")
SOFTMAX = os.path.join(ROOT, "examples", "softmax.py")


def call(request, path, extra_env=None, timeout=300):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), PATH=path)
    env.pop("CUDA_HOME", None)
    env.update(extra_env or {})
    proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", "profile"], input=json.dumps(request),
                          capture_output=True, text=True, env=env, timeout=timeout)
    return json.loads(proc.stdout)


# A stand-in for ncu: records its arguments, then behaves as MODE says.
FAKE_NCU = '''#!{python}
import os, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_NCU_LOG"], "a") as f:
    f.write(" ".join(args) + "\\n")
mode = os.environ.get("FAKE_NCU_MODE", "ok")
if args == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.3.1.0 (build 1)")
    sys.exit(0)
if "-i" in args:
    page = args[args.index("--page") + 1]
    sys.stdout.write(open(os.path.join({fixtures!r}, "softmax." + page + ".csv")).read())
    sys.exit(0)
if mode == "perm":
    print("==PROF== Connected to process 790")
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
          "Counters on the target device 0.")
    sys.exit(1)
if mode == "none":
    print("==WARNING== No kernels were profiled.")
    sys.exit(0)
if mode == "sleep":
    time.sleep(60)
out = args[args.index("-o") + 1]
open(out + ".ncu-rep", "w").write("report")
print("==PROF== Report: " + out + ".ncu-rep")
'''


@pytest.fixture
def fake_ncu(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ncu = bin_dir / "ncu"
    ncu.write_text(FAKE_NCU.format(python=sys.executable, fixtures=FIXTURES))
    ncu.chmod(0o755)
    log = tmp_path / "ncu-calls.txt"
    return {"path": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "log": log}


def test_missing_ncu_is_no_ncu(tmp_path):
    if os.path.exists("/usr/local/cuda/bin/ncu"):
        pytest.skip("this machine has /usr/local/cuda/bin/ncu")
    empty = tmp_path / "empty"
    empty.mkdir()
    reply = call({"task": SOFTMAX, "kernel": "softmax_kernel", "out_dir": str(tmp_path / "out")}, str(empty))
    assert reply["ok"] is False
    assert reply["error"]["kind"] == "no-ncu"
    assert "ncu" in reply["error"]["message"]


def test_missing_task_is_reported_before_looking_for_ncu(tmp_path):
    reply = call({"task": str(tmp_path / "nope.py"), "out_dir": str(tmp_path)}, str(tmp_path))
    assert reply["error"]["kind"] == "task-not-found"


def test_profiles_the_second_launch_and_exports_three_pages(tmp_path, fake_ncu):
    out = tmp_path / "out"
    reply = call({"task": SOFTMAX, "kernel": "softmax_kernel", "out_dir": str(out)}, fake_ncu["path"],
                 {"FAKE_NCU_LOG": str(fake_ncu["log"])})
    assert reply["ok"] is True, reply
    assert reply["ncu_version"].startswith("Version 2025.3.1")
    [k] = reply["kernels"]
    assert k["kernel"] == "softmax_kernel"
    assert k["files"]["report"] == str(out / "softmax_kernel.ncu-rep")
    for page in ("details", "raw", "source"):
        with open(k["files"][page]) as got, open(os.path.join(FIXTURES, f"softmax.{page}.csv")) as want:
            assert got.read() == want.read()
    assert k["problems"] == []
    calls = fake_ncu["log"].read_text().splitlines()
    profile = next(c for c in calls if " -o " in c)
    for expected in ("--clock-control none", "--target-processes all", "-k regex:^softmax_kernel$",
                     "--launch-skip 1", "--launch-count 1", "--set full", "--import-source yes",
                     "-m tritondx_bridge.launch_once " + SOFTMAX):
        assert expected in profile
    assert any("--page source --print-source sass" in c for c in calls)


def test_counter_permission_error_is_its_own_kind(tmp_path, fake_ncu):
    reply = call({"task": SOFTMAX, "kernel": "softmax_kernel", "out_dir": str(tmp_path / "out")}, fake_ncu["path"],
                 {"FAKE_NCU_LOG": str(fake_ncu["log"]), "FAKE_NCU_MODE": "perm"})
    assert reply["ok"] is False
    assert reply["error"]["kind"] == "no-counter-permission"
    assert "ERR_NVGPUCTRPERM" in reply["error"]["message"]
    assert "NVreg_RestrictProfilingToAdminUsers" in reply["error"]["message"]


def test_kernel_never_launched(tmp_path, fake_ncu):
    reply = call({"task": SOFTMAX, "kernel": "not_a_kernel", "out_dir": str(tmp_path / "out")}, fake_ncu["path"],
                 {"FAKE_NCU_LOG": str(fake_ncu["log"]), "FAKE_NCU_MODE": "none"})
    assert reply["error"]["kind"] == "no-kernel-profiled"
    assert "not_a_kernel" in reply["error"]["message"]


def test_timeout_kills_ncu(tmp_path, fake_ncu):
    reply = call({"task": SOFTMAX, "kernel": "softmax_kernel", "out_dir": str(tmp_path / "out"), "timeout": 3},
                 fake_ncu["path"], {"FAKE_NCU_LOG": str(fake_ncu["log"]), "FAKE_NCU_MODE": "sleep"}, timeout=60)
    assert reply["error"]["kind"] == "timeout"
