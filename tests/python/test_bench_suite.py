"""Every benchmark entry (bench/suite/<category>/<name>.py, see bench/suite/README.md): its note,
its realistic size, and its correctness on small inputs under Triton's interpreter on the CPU."""
import json
import os
import pathlib
import subprocess
import sys

import pytest
from entry_checks import CHECK, DESCRIBE

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUITE = ROOT / "bench" / "suite"
ENTRIES = sorted(p for p in SUITE.glob("*/*.py") if not p.name.startswith("_"))
L2_BYTES = 60 * 1024 * 1024


@pytest.fixture(scope="module")
def described():
    r = subprocess.run([sys.executable, "-c", DESCRIBE, str(ROOT / "python"), *map(str, ENTRIES)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_suite_has_forty_entries():
    assert len(ENTRIES) >= 40, f"{len(ENTRIES)} entries"


@pytest.mark.parametrize("path", ENTRIES, ids=[f"{p.parent.name}/{p.stem}" for p in ENTRIES])
def test_entry_note_and_size(path, described):
    d = described[str(path)]
    assert "Provenance:" in d["doc"] and "Weaknesses:" in d["doc"], "the docstring needs Provenance: and Weaknesses:"
    for name in ("launch", "reference", "make_inputs", "make_small_inputs", "bytes_moved"):
        assert name in d["functions"], f"missing {name}"
    assert d["tolerance_is_dict"], "TOLERANCE must be a dict"
    moved = d["bytes_moved"]
    compute = d["flops"] > 1e11
    assert compute or moved >= 3 * L2_BYTES, f"{moved / 1e6:.0f} MB moved: not several times the 60 MB L2"


@pytest.mark.parametrize("path", ENTRIES, ids=[f"{p.parent.name}/{p.stem}" for p in ENTRIES])
def test_entry_matches_reference_under_interpreter(path, described):
    known = described[str(path)]["interpreter_xfail"]
    if known:
        pytest.xfail(known)  # a documented bug of Triton's CPU interpreter, not of the kernel
    env = dict(os.environ, TRITON_INTERPRET="1")
    r = subprocess.run([sys.executable, "-c", CHECK, str(path), str(ROOT / "python")], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    result = json.loads(r.stdout.strip().splitlines()[-1])
    assert not result["problems"], result["problems"]


@pytest.mark.parametrize("suite, at_least", [(SUITE, 8), (SUITE.parent / "corpus", 6)], ids=["suite", "corpus"])
def test_torch_baselines_agree_with_their_references(suite, at_least):
    """An entry's `torch_baseline` (what the bench times for torch eager and torch.compile) must
    compute what its reference computes, on the small inputs, on the CPU."""
    script = r'''
import glob, importlib.util, json, os, sys, torch
sys.path.insert(0, sys.argv[2])
from tritondx_bridge.cuda_emulation import emulated_cuda
out = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.py"))):
    spec = importlib.util.spec_from_file_location("entry_" + os.path.basename(path)[:-3], path)
    m = importlib.util.module_from_spec(spec)
    with emulated_cuda():  # a tutorial queries the driver when it is imported
        spec.loader.exec_module(m)
    if not hasattr(m, "torch_baseline"):
        continue
    torch.manual_seed(0)
    inputs = m.make_small_inputs("cpu")
    got, want = m.torch_baseline(*inputs), m.reference(*inputs)
    got, want = (x if isinstance(x, (tuple, list)) else (x,) for x in (got, want))
    tol = getattr(m, "TOLERANCE", {"rtol": 1e-2, "atol": 1e-2})
    out[os.path.relpath(path, sys.argv[1])] = [
        len(got) == len(want) and all(g.dtype == w.dtype for g, w in zip(got, want)),
        all(tuple(g.shape) == tuple(w.shape) for g, w in zip(got, want)),
        all(bool(torch.allclose(g.float(), w.float(), **tol)) for g, w in zip(got, want))]
print(json.dumps(out))
'''
    proc = subprocess.run([sys.executable, "-c", script, str(suite), str(ROOT / "python")], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    checked = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(checked) >= at_least, checked
    for name, (same_dtype, same_shape, close) in checked.items():
        assert same_dtype and same_shape and close, name
