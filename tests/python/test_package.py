"""`pip install .` (issue 25): the wheel built from this checkout, installed into a fresh virtual
environment, runs from another folder with its own bridge, targets and docs; the source tree's are
not used. The command line and the Python API both work there, and the exit statuses reach Python
as TritondxError.

The wheel is built from the already configured build/ (the same settings as scripts/setup.sh),
so nothing is compiled again; the fresh environment gets the wheel without its dependencies and
reaches triton and torch through a .pth file naming .venv's site-packages (installing them again
would download gigabytes)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    if not (BUILD / "build.ninja").exists() or not (BUILD / "tritondx").exists():
        pytest.skip("build/ is not configured and built (scripts/setup.sh)")
    work = tmp_path_factory.mktemp("package")
    wheels = work / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels), f"--config-settings=build-dir={BUILD}",
                    "--config-settings=cmake.build-type=RelWithDebInfo", "--config-settings=install.strip=true",
                    "--config-settings=cmake.define.TRITONDX_BUILD_TESTS=ON",
                    "--config-settings=cmake.define.TRITONDX_BUILD_BENCH=ON"], check=True, cwd=work)
    wheel = next(wheels.glob("tritondx-*.whl"))
    env_dir = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    ours = subprocess.run([sys.executable, "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    Path(site, "tritondx-test-deps.pth").write_text(ours + "\n")
    elsewhere = work / "elsewhere" / "examples"
    elsewhere.mkdir(parents=True)
    for example in ("softmax.py", "api.py"):
        shutil.copy(ROOT / "examples" / example, elsewhere / example)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TRITONDX_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}:/usr/bin:/bin"
    return {"venv": env_dir, "python": python, "site": Path(site), "cwd": elsewhere.parent, "env": env}


def _run(inst, *args):
    return subprocess.run(list(args), cwd=inst["cwd"], env=inst["env"], capture_output=True, text=True, timeout=600)


def test_the_installed_command_finds_everything_beside_itself(installed):
    r = _run(installed, "tritondx", "paths", "--json")
    assert r.returncode == 0, r.stderr
    paths = json.loads(r.stdout)
    package = installed["site"] / "tritondx"
    assert paths["installed"] is True
    assert Path(paths["data"]) == package / "share"
    assert Path(paths["targets"]) == package / "share" / "targets"
    assert Path(paths["bridge"]) == package / "share" / "python"
    assert Path(paths["python"]).parent == installed["venv"] / "bin"
    assert (package / "share" / "targets" / "nvidia-h200.json").exists()
    assert (package / "share" / "docs" / "task-format.md").exists()
    assert not str(ROOT) in r.stdout


def test_help_and_diagnose_run_from_another_folder(installed):
    r = _run(installed, "tritondx", "--help")
    assert r.returncode == 0 and "Exit status: 0 success" in r.stdout
    r = _run(installed, "tritondx", "diagnose", "examples/softmax.py", "--max-level", "0")
    assert r.returncode == 0, r.stderr
    assert "kernel softmax_kernel" in r.stdout
    assert "l0-multi-pass-reduction" in r.stdout
    r = _run(installed, "tritondx", "diagnose", "examples/softmax.py", "--no-such-option")
    assert r.returncode == 2


def test_the_python_api(installed):
    code = """
import tritondx
d = tritondx.diagnose('examples/softmax.py', levels=0)
print(d.kernels[0].name, d.kernels[0].findings[0].rule, d.reached)
assert all(f.level == 'L0' for f in d.kernels[0].findings)
assert any(p.recipe == 'online-softmax' for f in d.kernels[0].findings for p in f.proposals)
try:
    tritondx.diagnose('examples/no_such_task.py')
except tritondx.TritondxError as e:
    print('error', e.status, e.kind)
"""
    r = _run(installed, str(installed["python"]), "-c", code)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("softmax_kernel l0-"), r.stdout
    assert lines[0].endswith(" L0")
    assert lines[1] == "error 1 failed"


def test_the_api_example_runs(installed):
    r = _run(installed, str(installed["python"]), "examples/api.py")
    assert r.returncode == 0, r.stderr
    assert "softmax_kernel: " in r.stdout
    assert "  proposes " in r.stdout and "candidates; best: candidate" in r.stdout
    assert "expected failure: exit 1 (failed)" in r.stdout


CAPTURED_PROGRAM = """
import torch, triton, triton.language as tl

@triton.jit
def twice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

def twice(x):
    out = torch.empty_like(x)
    twice_kernel[(triton.cdiv(x.numel(), 512),)](x, out, x.numel(), BLOCK=512)
    return out
"""


def test_capture_runs_installed_from_the_command_and_the_api(installed):
    program = installed["cwd"] / "capture_me.py"
    program.write_text(CAPTURED_PROGRAM + "\nif __name__ == '__main__':\n    twice(torch.randn(4096, device='cuda'))\n")
    r = _run(installed, "tritondx", "capture", "--gpu", "off", "--out", "captured-cli", "--", "python", str(program))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "captured 1 launch(es) of 1 Triton kernel(s)" in r.stdout
    assert (installed["cwd"] / "captured-cli" / "twice_kernel.py").exists()
    code = f"""
import sys, tritondx
sys.path.insert(0, {str(installed["cwd"])!r})
import torch, capture_me
with tritondx.capture(out="captured-api", gpu="off") as cap:
    capture_me.twice(torch.randn(1000, device="cuda"))
print(cap.kernels[0]["kernel"], bool(cap.kernels[0]["task"]))
"""
    r = _run(installed, str(installed["python"]), "-c", code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-2:] == ["twice_kernel", "True"], r.stdout
