"""The random-point audit of the timing loop (timing_audit.py), driven here through the same
calls timing.time_launch makes, on CPU tensors: a kernel that caches its outputs by address, or
that changes once warmed up, passes the checks before and after timing and is caught by the
audited call; an honest one passes. On the GPU, tests/gpu/test_timing_audit_gpu.py runs the
whole `run` verb on such kernels."""
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from tritondx_bridge import verify  # noqa: E402
from tritondx_bridge.timing_audit import RandomPointAudit  # noqa: E402


class Task:
    """What the audit needs of a loaded task: its module's functions."""

    def __init__(self, **functions):
        self.path = "task.py"
        self.module = type("Module", (), {k: staticmethod(v) for k, v in functions.items()})

    def function(self, name):
        return getattr(self.module, name)


def make_inputs(device):
    return (torch.randn(64, device=device),)


def reference(x):
    return 2 * x


def honest(x):
    return 2 * x


def run_loop(launch, task, reps=60, sets=2):
    """The loop of timing.time_launch without CUDA events."""
    input_sets = [verify.make_inputs(task, 100 + i, "cpu") for i in range(sets)]
    audit = RandomPointAudit(task, seed=7, device="cpu")
    audited = audit.plan(reps, input_sets)
    for i in range(reps):
        inputs = input_sets[i % sets]
        if i == audited:
            audit.before_call(inputs)
        out = launch(*inputs)
        if i == audited:
            audit.after_call(out, inputs)
    return audit.result()


def test_an_honest_kernel_passes_and_the_call_is_inside_the_loop():
    result = run_loop(honest, Task(make_inputs=make_inputs, reference=reference))
    assert result["passed"], result
    assert 6 <= result["iteration"] < 60 and result["reps"] == 60, "never among the first tenth of the calls"


def test_outputs_cached_by_input_address_are_caught():
    cache = {}

    def cached(x):
        # The cache keeps its inputs alive, so no later tensor can reuse a cached address.
        if x.data_ptr() not in cache:
            cache[x.data_ptr()] = (x, 2 * x)
        return cache[x.data_ptr()][1]

    # Fresh tensors at every verification draw: the cache never hits there.
    assert verify.check_correctness(Task(make_inputs=make_inputs, reference=reference, launch=cached),
                                    draws=3, device="cpu", test_inputs=False)["passed"]
    result = run_loop(cached, Task(make_inputs=make_inputs, reference=reference))
    assert not result["passed"]
    message = result["failures"][0]["message"]
    assert message.startswith(f"the call audited at iteration {result['iteration']} of 60 in the timing loop "
                              "(fresh inputs): against the reference: output 0:"), message


def test_a_kernel_that_changes_once_warmed_up_is_caught():
    calls = []

    def lazy_after_warmup(x):
        calls.append(1)
        return 2 * x if len(calls) <= 3 else torch.zeros_like(x)

    result = run_loop(lazy_after_warmup, Task(make_inputs=make_inputs, reference=reference))
    assert not result["passed"]
    assert "elements out of tolerance" in result["failures"][0]["message"]


def test_without_a_reference_the_initial_kernel_is_the_reference():
    initial = Task(make_inputs=make_inputs, launch=honest)
    task = Task(make_inputs=make_inputs)
    input_sets = [verify.make_inputs(task, 100, "cpu")]
    audit = RandomPointAudit(task, seed=3, initial=initial, device="cpu")
    audited = audit.plan(20, input_sets)
    for i in range(20):
        if i == audited:
            audit.before_call(input_sets[0])
        out = honest(*input_sets[0]) if i != audited else torch.zeros(64)
        if i == audited:
            audit.after_call(out, input_sets[0])
    result = audit.result()
    assert not result["passed"]
    assert "against the initial kernel" in result["failures"][0]["message"]


def test_no_audit_without_anything_to_compare_with_or_a_loop_of_one():
    result = run_loop(honest, Task(make_inputs=make_inputs))
    assert result == {"skipped": "the task has neither a reference nor an initial kernel to compare the audited "
                                 "call with"}
    result = run_loop(honest, Task(make_inputs=make_inputs, reference=reference), reps=1)
    assert result["skipped"].startswith("a loop of 1 call(s)")
