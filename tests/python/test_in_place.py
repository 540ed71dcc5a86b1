"""Tasks whose kernel updates its inputs in place name them in MUTATES (in_place.py): launch() is
verified and checked on copies of them, so it leaves its inputs alone like any task, and only the
timing runs it on the inputs themselves, restoring them between calls (tests/gpu/test_in_place_gpu.py
runs that part on a GPU). Here: the wrapper and the restorer on CPU tensors, then the bridge's verify
and runtime integrity checks on real in-place kernels under Triton's interpreter."""
import json
import os
import subprocess
import sys
import types

import pytest
import torch

from bridge_server import ROOT, BridgeServer

sys.path.insert(0, os.path.join(ROOT, "python"))

from tritondx_bridge import in_place  # noqa: E402
from tritondx_bridge.errors import BridgeError  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "in_place")


def module_with(launch, mutates):
    m = types.ModuleType("task")
    m.launch = launch
    if mutates is not None:
        m.MUTATES = mutates
    return m


def double_first(x, y):
    x.mul_(2)


def test_launch_runs_on_copies_and_returns_the_updated_inputs():
    m = module_with(double_first, ("x",))
    in_place.install(m)
    x, y = torch.ones(4), torch.ones(4)
    out = m.launch(x, y)
    assert torch.equal(x, torch.ones(4)), "the installed launch() left its input alone"
    assert torch.equal(out, torch.full((4,), 2.0))
    assert out.data_ptr() != x.data_ptr()


def test_what_launch_returns_is_its_result_when_it_returns_something():
    def axpy(x, y):
        y.add_(x)
        return y, y.sum()

    m = module_with(axpy, ("y",))
    in_place.install(m)
    x, y = torch.ones(3), torch.zeros(3)
    out, total = m.launch(x, y)
    assert torch.equal(y, torch.zeros(3)) and torch.equal(out, torch.ones(3)) and float(total) == 3.0


def test_the_timed_form_updates_the_inputs_and_the_restorer_puts_them_back():
    m = module_with(double_first, ("x",))
    in_place.install(m)
    sets = [(torch.ones(4), torch.ones(4)), (torch.full((4,), 3.0), torch.ones(4))]
    launch, reset = in_place.timed(m.launch, sets)
    for _ in range(3):
        for s in sets:
            reset(s)
            out = launch(*s)
            assert out.data_ptr() == s[0].data_ptr(), "the timed call works on the input itself"
    assert torch.equal(sets[0][0], torch.full((4,), 2.0)), "one doubling since the last reset, not three"
    assert torch.equal(sets[1][0], torch.full((4,), 6.0))
    reset(sets[0])
    assert torch.equal(sets[0][0], torch.ones(4))
    assert reset.indices == [0]


def test_the_restorer_writes_into_an_input_that_requires_grad():
    m = module_with(double_first, ("x",))
    in_place.install(m)
    sets = [(torch.ones(4, requires_grad=True), torch.ones(4))]
    launch, reset = in_place.timed(m.launch, sets)
    with torch.no_grad():
        sets[0][0].mul_(5)
    reset(sets[0])
    assert torch.equal(sets[0][0].detach(), torch.ones(4))


def test_without_mutates_nothing_changes():
    m = module_with(double_first, None)
    in_place.install(m)
    assert m.launch is double_first
    launch, reset = in_place.timed(m.launch, [(torch.ones(1), torch.ones(1))])
    assert launch is double_first and reset is None


@pytest.mark.parametrize("value, message", [
    ("x", "MUTATES must be a tuple of launch()'s parameter names"),
    ((), "MUTATES must be a tuple of launch()'s parameter names"),
    ((0,), "MUTATES must be a tuple of launch()'s parameter names"),
    (("z",), "MUTATES names 'z', which launch(x, y) does not take"),
    (("x", "x"), "MUTATES names an input twice"),
])
def test_a_malformed_mutates_is_named(value, message):
    with pytest.raises(BridgeError) as e:
        in_place.install(module_with(double_first, value))
    assert e.value.kind == "bad-mutates" and message in e.value.message, e.value.message


@pytest.fixture(scope="module")
def bridge():
    server = BridgeServer(interpret=True)
    yield server
    server.close()


@pytest.mark.parametrize("task", ["scale_in_place.py", "axpy_in_place_returns.py"])
def test_an_in_place_kernel_is_verified_against_its_reference(bridge, task):
    reply = bridge.call("verify", {"task": os.path.join(FIXTURES, task), "device": "cpu", "draws": 2})
    assert reply["ok"], reply.get("error")
    failures = [f["message"] for d in reply["correctness"]["draws"] for f in d["failures"]]
    assert reply["correctness"]["passed"], failures


def test_a_wrong_in_place_rewrite_is_rejected(bridge, tmp_path):
    wrong = tmp_path / "scale_in_place_wrong.py"
    wrong.write_text(open(os.path.join(FIXTURES, "scale_in_place.py")).read().replace("* 2.0, mask=m)", "* 3.0, mask=m)"))
    reply = bridge.call("verify", {"task": str(wrong), "device": "cpu", "draws": 1})
    assert reply["ok"], reply.get("error")
    assert not reply["correctness"]["passed"]
    failures = [f["message"] for d in reply["correctness"]["draws"] for f in d["failures"]]
    assert any(m.startswith("against the reference: output 0:") for m in failures), failures


def test_the_runtime_integrity_checks_pass_an_in_place_kernel():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), CUDA_VISIBLE_DEVICES="")
    task = os.path.join(FIXTURES, "scale_in_place.py")
    done = subprocess.run([sys.executable, "-m", "tritondx_bridge", "run"],
                          input=json.dumps({"task": task, "integrity": {"device": "cpu"}}),
                          capture_output=True, text=True, env=env, timeout=300)
    reply = json.loads(done.stdout)
    assert reply["ok"], reply
    assert reply["integrity"]["passed"], reply["integrity"]
