"""Wrappers that want a GPU, on this CPU-only machine: every idiom of tests/fixtures/cuda_idioms
(each written the way the kernel libraries write it) is captured, compiled for sm_90, and run
under the Triton interpreter through one `serve` bridge process, as the C++ side drives it."""
import glob
import os
import subprocess
import sys

import pytest

from bridge_server import ROOT, BridgeServer

IDIOMS = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "cuda_idioms", "*.py")))


def header(path, key):
    with open(path) as f:
        return [line.split(":", 1)[1].strip() for line in f if line.startswith(f"# {key}:")]


@pytest.fixture(scope="module")
def bridge():
    server = BridgeServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def interpreter():
    server = BridgeServer(interpret=True)
    yield server
    server.close()


@pytest.mark.parametrize("path", IDIOMS, ids=[os.path.basename(p) for p in IDIOMS])
def test_capture_answers_the_wrappers_cuda_calls(bridge, path):
    reply = bridge.call("capture", {"task": path})
    assert reply["ok"], reply.get("error")
    assert reply["launches"], "no kernel launch was captured"
    emulated = reply["cuda_emulation"]["emulated"]
    for name in header(path, "EMULATED"):
        assert any(e.startswith(name) for e in emulated), f"{name} not among {emulated}"


@pytest.mark.parametrize("path", IDIOMS, ids=[os.path.basename(p) for p in IDIOMS])
def test_compiles_for_sm90_without_a_gpu(bridge, path, tmp_path):
    reply = bridge.call("compile", {"task": path, "out_dir": str(tmp_path)})
    assert reply["ok"], reply.get("error")
    for kernel in reply["kernels"]:
        assert os.path.getsize(kernel["files"]["ttgir"]) > 0
        assert kernel["metadata"]["target"] == "cuda:90"


@pytest.mark.parametrize("path", IDIOMS, ids=[os.path.basename(p) for p in IDIOMS])
def test_interpreter_runs_the_wrapper_and_matches_its_reference(interpreter, path):
    reply = interpreter.call("verify", {"task": path, "device": "cpu", "draws": 1})
    assert reply["ok"], reply.get("error")
    assert reply["correctness"]["passed"], reply["correctness"]["draws"]
    assert reply["correctness"]["references"] == ["the reference"]


def test_a_host_read_of_a_kernel_result_is_reported_with_its_line(bridge):
    path = os.path.join(ROOT, "tests", "fixtures", "cuda_idioms", "host_read_item.py")
    reply = bridge.call("capture", {"task": path})
    assert reply["ok"], reply.get("error")
    reads = reply["cuda_emulation"]["host_reads"]
    line = next(i for i, text in enumerate(open(path), 1) if "count.item()" in text)
    assert [(r["method"], r["line"], r["kernel"]) for r in reads] == [("item", line, "_count_positive_kernel")]


def test_the_compile_after_an_interpreted_verify_is_a_real_compile(bridge, tmp_path):
    """verify on the CPU runs in a child process started with TRITON_INTERPRET, so this process
    goes on compiling for real."""
    path = os.path.join(ROOT, "tests", "fixtures", "cuda_idioms", "device_context.py")
    assert bridge.call("verify", {"task": path, "device": "cpu", "draws": 1})["ok"]
    reply = bridge.call("compile", {"task": path, "out_dir": str(tmp_path)})
    assert reply["ok"], reply.get("error")


RESTORED = """
import torch
from triton.runtime import driver
from tritondx_bridge.cuda_emulation import emulated_cuda
available, device, driver_before = torch.cuda.is_available(), torch.cuda.device, driver._active
x = torch.ones(4)
try:
    with emulated_cuda():
        assert torch.cuda.is_available() and x.is_cuda and x.device.type == "cuda"
        assert torch.empty(3, device="cuda").is_cpu
        assert torch.cuda.get_device_properties(0).multi_processor_count == 132
        assert driver.active.utils.get_device_properties(0)["max_shared_mem"] == 232448
        raise KeyError("the wrapper failed")
except KeyError:
    pass
assert torch.cuda.is_available() == available and torch.cuda.device is device
assert driver._active is driver_before
assert not x.is_cuda and x.device.type == "cpu"
print("restored")
"""


def test_everything_is_restored_after_the_emulation():
    """In a process of its own: an in-process import of triton (without TRITON_INTERPRET) would
    break the interpreter tests that share this xdist worker."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, "-c", RESTORED], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "restored" in proc.stdout, proc.stderr[-3000:]
