"""On a GPU: real wrappers and tasks without `reference` (issue 23). Every CUDA idiom of
tests/fixtures/cuda_idioms runs for real and matches its reference; a task without `reference`
is verified against its initial kernel (wrong rewrites rejected, float atomics at tolerance,
in-place updates compared); a launch that prints its output is timed with events when it cannot
be captured in a CUDA graph, and the process goes on working; the emulated device properties
are the card's. Skips cleanly without a CUDA device. Writes a summary to
$TRITONDX_RESULTS_DIR (default: results/gpu) when it runs."""
import datetime
import glob
import json
import os

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import sys  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from bridge_server import ROOT, BridgeServer  # noqa: E402

IDIOMS = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "cuda_idioms", "*.py")))
INITIAL = os.path.join(ROOT, "tests", "fixtures", "initial_reference")
LOG = []


@pytest.fixture(scope="module")
def bridge():
    server = BridgeServer()
    yield server
    server.close()


def verify(bridge, task, initial=None, draws=3):
    request = {"task": task, "device": "cuda", "draws": draws}
    if initial:
        request["initial_task"] = initial
    reply = bridge.call("verify", request)
    assert reply["ok"], reply.get("error")
    return reply["correctness"]


def failures(c):
    return [f["message"] for d in c["draws"] for f in d["failures"]]


@pytest.mark.parametrize("path", IDIOMS, ids=[os.path.basename(p) for p in IDIOMS])
def test_each_cuda_idiom_runs_for_real(bridge, path):
    c = verify(bridge, path)
    LOG.append(("idiom", os.path.basename(path), c["passed"], failures(c)[:1]))
    assert c["passed"], failures(c)


def test_wrong_rewrite_rejected_right_one_accepted_against_the_initial_kernel(bridge):
    original = os.path.join(INITIAL, "row_sum_atomic.py")
    alone = verify(bridge, original)
    right = verify(bridge, os.path.join(INITIAL, "row_sum_atomic_reordered.py"), original)
    wrong = verify(bridge, os.path.join(INITIAL, "row_sum_atomic_wrong.py"), original)
    LOG.append(("initial-reference", "row_sum_atomic (alone, right, wrong)", [alone["passed"], right["passed"],
                                                                              wrong["passed"]], failures(wrong)[:1]))
    assert alone["passed"], failures(alone)  # float atomics: two runs compared at tolerance
    assert right["passed"] and right["references"] == ["the initial kernel"], failures(right)
    assert not wrong["passed"] and failures(wrong)[0].startswith("against the initial kernel: output 0:")


def test_in_place_results_and_the_disagreeing_reference_are_named(bridge):
    axpy = os.path.join(INITIAL, "axpy_inplace.py")
    assert verify(bridge, axpy, axpy)["passed"]
    c = verify(bridge, os.path.join(INITIAL, "axpy_out_of_place.py"), axpy)
    assert any(m.startswith("against the initial kernel: input 1 as launch() left it") for m in failures(c))
    gelu = os.path.join(INITIAL, "gelu_with_wrong_reference.py")
    c = verify(bridge, gelu, gelu)
    assert not c["passed"] and all(m.startswith("against the reference:") for m in failures(c))


def test_a_launch_that_prints_is_timed_with_events_and_the_process_goes_on(bridge):
    path = os.path.join(ROOT, "tests", "fixtures", "real_launch", "prints_its_output.py")
    reply = bridge.call("run", {"task": path, "min_ms": 20})
    assert reply["ok"], reply.get("error")
    LOG.append(("graph-fallback", "prints_its_output", reply["correctness"]["passed"], reply["graph"]))
    assert reply["correctness"]["passed"] and reply["recheck"]["passed"]
    assert reply["timing"]["median_ms"] > 0
    assert "cannot be captured" in reply["graph"]["error"] and "CUDA events" in reply["graph"]["fallback"]
    after = bridge.call("run", {"task": os.path.join(ROOT, "examples", "vector_add.py"), "min_ms": 20})
    assert after["ok"] and after["correctness"]["passed"], after.get("error")
    assert after["graph"]["median_ms"] > 0


def test_the_emulated_device_is_the_card():
    from tritondx_bridge.cuda_emulation import DeviceProperties, load_target
    real = torch.cuda.get_device_properties(0)
    emulated = DeviceProperties(load_target("nvidia-h200"))
    # total_memory is left out: the description's is the datasheet's 141 GB, not a reading.
    fields = ("multi_processor_count", "major", "minor", "shared_memory_per_block_optin",
              "regs_per_multiprocessor", "max_threads_per_multi_processor", "L2_cache_size",
              "warp_size", "shared_memory_per_multiprocessor")
    pairs = {f: (getattr(real, f, None), getattr(emulated, f)) for f in fields}
    LOG.append(("device-properties", real.name, None,
                {**pairs, "total_memory": (real.total_memory, emulated.total_memory)}))
    if "H200" not in real.name:
        pytest.skip(f"the target description is the H200's; this card is {real.name}")
    assert all(a == b for a, b in pairs.values()), pairs


def teardown_module(module):
    if not LOG:
        return
    out_dir = os.environ.get("TRITONDX_RESULTS_DIR", os.path.join(ROOT, "results", "gpu"))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "real-launches.json"), "w") as f:
        json.dump({"card": torch.cuda.get_device_name(), "date": datetime.date.today().isoformat(),
                   "command": "python3 -m pytest -q tests/gpu/test_real_launches_gpu.py",
                   "results": [list(map(str, row[:2])) + [row[2], row[3]] for row in LOG]}, f, indent=1, default=str)
