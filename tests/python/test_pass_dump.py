"""Pass dumps of many compiles in one bridge process: each kernel's passes.txt is exactly what
Triton dumps for that kernel alone, and the process's dump file leaves with the process."""
import glob
import os
import signal
import subprocess
import sys

from bridge_server import BridgeServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASK = os.path.join(ROOT, "tests", "fixtures", "tasks", "cumsum_guarded_blocks.py")

# One kernel of the task compiled in a process of its own, dumping to MLIR_DUMP_PATH; Triton
# flushes its dump stream when that process exits, so the file is complete.
ALONE = """
import sys, tempfile, triton
from triton.backends.compiler import GPUTarget
from tritondx_bridge.capture import capture_launches
from tritondx_bridge.cuda_emulation import emulated_cuda
from tritondx_bridge.task import load_task
target = GPUTarget("cuda", 90, 32)
with emulated_cuda() as emulation:
    task = load_task(sys.argv[1])
    launches, _ = capture_launches(task, emulation, target)
launch = next(l for l in launches if l.name == sys.argv[2])
src = triton.compiler.ASTSource(launch.fn, launch.signature, launch.constexprs, launch.attrs)
triton.compile(src, target=target, options=launch.options.__dict__)
"""


def bridge_env(tmp_dir):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), TMPDIR=str(tmp_dir))
    env.pop("TRITON_INTERPRET", None)
    return env


def dump_alone(tmp_path, kernel):
    path = tmp_path / f"{kernel}.alone.txt"
    env = dict(bridge_env(tmp_path), MLIR_ENABLE_DUMP="1", MLIR_DUMP_PATH=str(path), TRITON_ALWAYS_COMPILE="1",
               TRITON_CACHE_DIR=str(tmp_path / f"cache-{kernel}"))
    done = subprocess.run([sys.executable, "-c", ALONE, TASK, kernel], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return path.read_text()


def test_each_kernel_dump_is_its_whole_dump_alone(tmp_path):
    """The second and third kernels start where Triton's buffer held the previous kernel's last
    bytes, and every kernel's last pass used to lose up to 4 KiB to that buffer."""
    bridge_tmp = tmp_path / "bridge-tmp"
    bridge_tmp.mkdir()
    bridge = BridgeServer(extra_env={"TMPDIR": str(bridge_tmp)})
    try:
        reply = bridge.call("compile", {"task": TASK, "out_dir": str(tmp_path / "out"), "pass_dumps": True})
    finally:
        bridge.close()
    assert reply["ok"], reply
    kernels = reply["kernels"]
    assert len(kernels) == 3
    for k in kernels:
        with open(k["files"]["passes"]) as f:
            shared_process = f.read()
        alone = dump_alone(tmp_path, k["kernel"])
        assert shared_process == alone, k["kernel"]
        assert "tdx.pass_dump_flush" not in shared_process


def test_a_killed_bridge_leaves_no_dump_file(tmp_path):
    bridge = BridgeServer(extra_env={"TMPDIR": str(tmp_path)})
    try:
        reply = bridge.call("compile", {"task": TASK, "out_dir": str(tmp_path / "out"), "kernel": "block_scan_kernel",
                                        "pass_dumps": True})
        assert reply["ok"], reply
        assert os.path.getsize(reply["kernels"][0]["files"]["passes"]) > 100_000
        names = glob.glob(str(tmp_path / "tritondx-passes-*"))
        assert not names, f"the dump file still has a name while the bridge runs: {names}"
    finally:
        bridge.proc.send_signal(signal.SIGKILL)
        bridge.proc.wait(timeout=60)
    assert not glob.glob(str(tmp_path / "tritondx-*")), os.listdir(tmp_path)
