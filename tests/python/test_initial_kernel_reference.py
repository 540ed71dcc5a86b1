"""A task without `reference` is verified against its initial kernel (a frozen copy of the file),
here on the CPU under the Triton interpreter (tests/gpu/test_initial_reference_gpu.py runs the
same on a GPU): a right rewrite passes, a wrong one fails naming the initial kernel, float
atomics are compared at tolerance, in-place updates count as results, and a task with both a
reference and an initial kernel says which of the two disagreed."""
import os

import pytest

from bridge_server import ROOT, BridgeServer

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "initial_reference")


def fixture(name):
    return os.path.join(FIXTURES, name)


@pytest.fixture(scope="module")
def bridge():
    server = BridgeServer(interpret=True)
    yield server
    server.close()


def verify(bridge, task, initial=None):
    request = {"task": fixture(task), "device": "cpu", "draws": 2}
    if initial:
        request["initial_task"] = fixture(initial)
    reply = bridge.call("verify", request)
    assert reply["ok"], reply.get("error")
    return reply["correctness"]


def messages(correctness):
    return [f["message"] for d in correctness["draws"] for f in d["failures"]]


def test_the_original_without_reference_runs_and_repeats(bridge):
    c = verify(bridge, "row_sum_atomic.py")
    assert c["passed"], messages(c)
    assert c["references"] == [] and "only that launch() runs" in c["note"]


def test_a_right_rewrite_with_other_rounding_is_accepted_at_tolerance(bridge):
    c = verify(bridge, "row_sum_atomic_reordered.py", initial="row_sum_atomic.py")
    assert c["passed"], messages(c)
    assert c["references"] == ["the initial kernel"]


def test_a_wrong_rewrite_is_rejected_against_the_initial_kernel(bridge):
    c = verify(bridge, "row_sum_atomic_wrong.py", initial="row_sum_atomic.py")
    assert not c["passed"]
    [message] = messages(c)
    assert message.startswith("against the initial kernel: output 0: 48 of 48 elements out of tolerance")


def test_an_in_place_update_is_part_of_the_result(bridge):
    assert verify(bridge, "axpy_inplace.py", initial="axpy_inplace.py")["passed"]
    c = verify(bridge, "axpy_out_of_place.py", initial="axpy_inplace.py")
    assert not c["passed"]
    assert any(m.startswith("against the initial kernel: input 1 as launch() left it (updated in place): ")
               for m in messages(c)), messages(c)


def test_with_both_the_failure_names_the_one_that_disagreed(bridge):
    c = verify(bridge, "gelu_with_wrong_reference.py", initial="gelu_with_wrong_reference.py")
    assert c["references"] == ["the reference", "the initial kernel"]
    assert not c["passed"]
    assert all(m.startswith("against the reference:") for m in messages(c)), messages(c)


def test_a_task_that_is_not_a_kernel_says_so(bridge):
    reply = bridge.call("verify", {"task": os.path.join(ROOT, "tests", "fixtures", "bad_tasks", "no_jit_kernel.py"),
                                   "device": "cpu"})
    assert not reply["ok"] and reply["error"]["kind"] == "no-jit-kernel"
