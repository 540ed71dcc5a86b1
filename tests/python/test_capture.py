"""`tritondx capture --gpu off` (program_capture.py): a program's Triton launches recorded on CPU
tensors under the CUDA emulation, ranked, and written as tasks that load, compile and verify
(against the original kernel, under the interpreter) at every captured shape."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "capture")
PROGRAM = os.path.join(FIXTURES, "train_step.py")
ENV = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))


def capture(out, *program, options=(), cwd=None):
    done = subprocess.run([sys.executable, "-m", "tritondx_bridge.program_capture", "--gpu", "off", "--out", str(out),
                           *options, "--", *program], capture_output=True, text=True, env=ENV, timeout=300, cwd=cwd)
    summary = json.load(open(out / "capture.json")) if (out / "capture.json").exists() else None
    return done, summary


def verify_on_cpu(tmp_path, *tasks):
    """tools/verify_shapes.py over `tasks` under Triton's interpreter: one reply per task, in order."""
    result = tmp_path / "verified.jsonl"
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "verify_shapes.py"), "--device", "cpu", "--out",
                    str(result), *map(str, tasks)], capture_output=True, text=True,
                   env=dict(ENV, TRITON_INTERPRET="1"), timeout=600)
    return [json.loads(line) for line in result.read_text().splitlines()]


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    out = tmp_path_factory.mktemp("captured")
    done, summary = capture(out, "python", PROGRAM, "--steps", "3")
    assert done.returncode == 0, done.stderr
    return out, summary


def kernels_of(summary):
    return {k["kernel"]: k for k in summary["kernels"]}


def test_every_launch_is_recorded_and_ranked_by_static_cost(captured):
    _, summary = captured
    assert summary["gpu"] is False and summary["error"] is None
    assert summary["launches"] == 11  # 3 steps x 3 kernels, and row_sum twice more
    k = kernels_of(summary)
    assert [e["kernel"] for e in summary["kernels"]] == ["scaled_square_kernel", "row_sum_kernel", "gather_kernel"]
    assert (k["scaled_square_kernel"]["calls"], k["row_sum_kernel"]["calls"], k["gather_kernel"]["calls"]) == (3, 5, 3)
    assert k["row_sum_kernel"]["configs"] == 4  # 256 and 96 rows, the 1024-wide copy, the strided view
    assert abs(sum(e["share"] for e in summary["kernels"]) - 1) < 1e-9
    assert summary["ranking"].startswith("static cost")
    assert k["scaled_square_kernel"]["file"].endswith("toy_kernels.py") and k["scaled_square_kernel"]["line"] == 18
    # Nothing the recorder read itself is reported as the program reading a kernel's output.
    assert summary["cuda_emulation"]["host_reads"] == []


def test_an_autotuned_kernel_records_its_configs_and_the_one_compiled(captured):
    _, summary = captured
    autotune = kernels_of(summary)["row_sum_kernel"]["autotune"]
    assert autotune["used"] == 0 and len(autotune["configs"]) == 2
    assert autotune["configs"][0].startswith("BLOCK_N: 128")


def test_the_task_repeats_the_launch_with_a_grid_formula_and_the_written_outputs(captured):
    out, _ = captured
    square = (out / "scaled_square_kernel.py").read_text()
    # The helper and the module constant come along; the grid is a formula a block-size rewrite can follow.
    assert "def _square(x):" in square and "SCALE = tl.constexpr(0.5)" in square
    assert 'grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)' in square
    assert "return out_ptr,  # the tensors the kernel writes" in square
    assert "SPDX-License-Identifier: MIT" in square.splitlines()[0]
    # A program id used as a row index: the grid is the row count, not cdiv(numel, BLOCK_N).
    row_sum = (out / "row_sum_kernel.py").read_text()
    assert "grid = (x_ptr.shape[0],)" in row_sum
    assert "ROWS_PER_PROGRAM = tl.constexpr(1)" in row_sum
    assert "BLOCK_N=128, num_warps=4" in row_sum


def test_make_inputs_recreate_layouts_and_data_ranges(captured):
    out, summary = captured
    code = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("t", sys.argv[1]); t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)
rows = [[list(x.shape), list(x.stride()), str(x.dtype)] if hasattr(x, "shape") else x for x in t.make_inputs("cpu")]
tests = [[[list(x.shape), list(x.stride())] if hasattr(x, "shape") else x for x in s] for s in t.make_test_inputs("cpu")]
print(json.dumps({"main": rows, "tests": tests}))
"""
    done = subprocess.run([sys.executable, "-c", code, str(out / "row_sum_kernel.py")], capture_output=True,
                          text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    shapes = json.loads(done.stdout)
    assert shapes["main"][0] == [[256, 1000], [1000, 1], "torch.float16"]
    assert [[32, 2048], [4096, 1]] in [s[0] for s in shapes["tests"]]  # the every-other-row view, strides kept
    # The index tensor of the gather is drawn in its recorded range (in bounds of the 1000-row table).
    gather = [c for c in json.load(open(out / "capture.json"))["kernels"] if c["kernel"] == "gather_kernel"][0]
    assert gather["task"]
    code = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("t", sys.argv[1]); t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)
idx = t.make_inputs("cpu")[1]
print(json.dumps([t.CONFIGS[0][1]["data"], int(idx.min()), int(idx.max()), str(idx.dtype)]))
"""
    done = subprocess.run([sys.executable, "-c", code, str(out / "gather_kernel.py")], capture_output=True,
                          text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    data, low, high, dtype = json.loads(done.stdout)
    # 256 indices into a 1000-row table: drawn again from exactly the values the program passed.
    assert data["kind"] == "int" and 0 <= data["min"] and data["max"] <= 999 and len(data["values"]) > 100
    assert data["min"] <= low and high <= data["max"] and dtype == "torch.int64"
    notes = kernels_of(summary)["row_sum_kernel"]["notes"]
    assert any("x_ptr (written by scaled_square_kernel) was never computed here" in n for n in notes), notes


@pytest.mark.parametrize("name", ["row_sum_kernel", "gather_kernel"])
def test_a_captured_task_verifies_at_every_captured_shape(captured, tmp_path, name):
    out, _ = captured
    [line] = verify_on_cpu(tmp_path, out / f"{name}.py")
    assert line.get("passed"), line
    assert line["test_inputs_checked"] == {"row_sum_kernel": 3, "gather_kernel": 1}[name]


def test_top_and_min_share_choose_which_kernels_get_tasks(tmp_path):
    done, summary = capture(tmp_path, PROGRAM, "--steps", "1", options=("--top", "2", "--min-share", "20"))
    assert done.returncode == 0, done.stderr
    k = kernels_of(summary)
    assert k["scaled_square_kernel"]["task"] and k["row_sum_kernel"]["task"]
    assert k["gather_kernel"]["task"] is None and k["gather_kernel"]["skipped"] == "below the top 2"
    done, summary = capture(tmp_path / "share", PROGRAM, "--steps", "1", options=("--min-share", "40"))
    k = kernels_of(summary)
    assert k["row_sum_kernel"]["task"] is None and "under --min-share 40%" in k["row_sum_kernel"]["skipped"]
    assert not (tmp_path / "share" / "row_sum_kernel.py").exists()


def test_a_program_that_fails_keeps_what_it_launched_before(tmp_path):
    program = tmp_path / "fails.py"
    program.write_text(f"""import sys
sys.path.insert(0, {FIXTURES!r})
import torch, toy_kernels
toy_kernels.scaled_square(torch.randn(4096, device="cuda"))
raise ValueError("the model diverged")
""")
    done, summary = capture(tmp_path / "out", str(program))
    assert done.returncode == 1
    assert summary["error"]["type"] == "ValueError" and summary["error"]["where"].endswith("fails.py:5")
    assert [k["kernel"] for k in summary["kernels"]] == ["scaled_square_kernel"]
    assert (tmp_path / "out" / "scaled_square_kernel.py").exists()


def test_a_program_without_kernels_and_a_missing_program_are_clear(tmp_path):
    program = tmp_path / "plain.py"
    program.write_text("print('no kernels here')\n")
    done, summary = capture(tmp_path / "out", str(program))
    assert done.returncode == 1 and summary["kernels"] == [] and "no kernels here" in done.stdout
    done, _ = capture(tmp_path / "missing", str(tmp_path / "nope.py"))
    assert done.returncode == 2 and "no such program file" in done.stderr


def test_kernel_writes_follow_assignments_and_helpers_not_loaded_indices():
    code = f"""
import sys; sys.path.insert(0, {FIXTURES!r})
import toy_kernels as t
from tritondx_bridge.kernel_writes import read_params, written_params
print(sorted(written_params(t.scaled_square_kernel)), sorted(written_params(t.gather_kernel.fn)))
print(sorted(read_params(t.scaled_square_kernel)), sorted(read_params(t.gather_kernel.fn)))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    # BLOCK appears in the address (offs = pid * BLOCK + ...); idx_ptr only through a loaded value.
    writes, reads = done.stdout.strip().splitlines()
    assert writes == "['BLOCK', 'out_ptr'] ['BLOCK', 'out_ptr']"
    # The table's address reads the loaded rows, and the loaded rows' address reads idx_ptr.
    assert reads == "['BLOCK', 'x_ptr'] ['BLOCK', 'dim', 'idx_ptr', 'table_ptr']"


def test_the_python_api_captures_a_block_of_the_program(tmp_path):
    code = f"""
import sys, json
sys.path.insert(0, {FIXTURES!r})
import torch, tritondx, toy_kernels
with tritondx.capture(out={str(tmp_path)!r}, gpu="off") as cap:
    x = torch.randn(512, 300, device="cuda", dtype=torch.float16)
    toy_kernels.row_sum(toy_kernels.scaled_square(x))
toy_kernels.scaled_square  # outside the block: nothing is recorded, and torch is itself again
print(json.dumps([[k["kernel"], k["calls"], bool(k["task"])] for k in cap.kernels]), torch.randn(2).device)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr
    kernels, device = done.stdout.strip().rsplit(" ", 1)
    assert json.loads(kernels) == [["scaled_square_kernel", 1, True], ["row_sum_kernel", 1, True]]
    assert device == "cpu"
    assert (tmp_path / "capture.json").exists() and (tmp_path / "row_sum_kernel.py").exists()


# Real third-party kernels called through their library's wrapper: FlagGems' softmax reads
# `tle.program_id` of a module object the file builds; Liger's cross entropy takes None pointers,
# constexprs before other parameters, and labels with -100 (ignored) beside valid class ids.
@pytest.mark.parametrize("entry", ["flaggems/softmax", "liger/cross_entropy_fwd"])
def test_a_library_kernel_is_captured_into_a_task_that_verifies(tmp_path, entry):
    done, summary = capture(tmp_path, os.path.join(FIXTURES, "corpus_program.py"), entry)
    assert done.returncode == 0, done.stderr
    [kernel] = summary["kernels"]
    assert kernel["task"] and kernel["file"].endswith(f"bench/corpus/{entry}.py"), kernel
    text = open(kernel["task"]).read()
    if entry == "flaggems/softmax":
        assert 'tle = types.ModuleType(\'flag_gems.utils.triton_lang_extension\')\ntle.program_id = program_id' in text
    else:
        assert "Y_stride, None, loss_ptr, None, loss_stride" in text and "lse_square_scale=0.0" in text
        assert '"sentinels": [-100]' in text or '"values": [-100' in text
        # The kernel overwrites the logits with their gradient: each call starts from the drawn logits.
        assert "\nMUTATES = ('X_ptr',)\n" in text
    if entry == "flaggems/softmax":
        assert "MUTATES" not in text
    [line] = verify_on_cpu(tmp_path, kernel["task"])
    assert line.get("passed"), line


def test_a_kernel_that_does_not_compile_gets_no_task_and_the_reason(tmp_path):
    program = tmp_path / "bad.py"
    program.write_text('''import torch, triton, triton.language as tl
SCALE = 0.5  # not a tl.constexpr: Triton refuses to read it inside a kernel

@triton.jit
def bad_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)

bad_kernel[(4,)](torch.randn(1000, device="cuda"), 1000, BLOCK=256)
''')
    done, summary = capture(tmp_path / "out", str(program))
    [kernel] = summary["kernels"]
    assert kernel["task"] is None
    assert kernel["skipped"].startswith("does not compile for sm_90: CompilationError")
    assert "Cannot access global variable SCALE" in kernel["skipped"]
    assert not (tmp_path / "out" / "bad_kernel.py").exists()


def test_a_module_with_autograd_kernels_is_captured_forward_and_backward(tmp_path):
    done, summary = capture(tmp_path, "python", "-m", "silu_pkg.train", "2", cwd=FIXTURES)
    assert done.returncode == 0, done.stderr
    assert "done 2" in done.stdout  # the program's own output, its argv as given
    k = kernels_of(summary)
    assert set(k) == {"fwd_kernel", "bwd_kernel"} and k["bwd_kernel"]["calls"] == 2
    text = open(k["bwd_kernel"]["task"]).read()
    # The incoming gradient of .sum() is all ones, and is drawn as such; dx (written) is drawn at random.
    assert '"data": {"kind": "float", "mean": 1.0, "std": 0.0, "min": 1.0, "max": 1.0}' in text
    lines = verify_on_cpu(tmp_path, k["fwd_kernel"]["task"], k["bwd_kernel"]["task"])
    assert len(lines) == 2 and all(line.get("passed") for line in lines), lines


@pytest.mark.skipif(importlib.util.find_spec("liger_kernel") is None, reason="liger-kernel is not installed")
def test_a_training_step_of_an_installed_library_is_captured_forward_and_backward(tmp_path):
    done, summary = capture(tmp_path, "python", os.path.join(FIXTURES, "liger_train.py"))
    assert done.returncode == 0, done.stderr
    k = kernels_of(summary)
    assert set(k) == {"_rms_norm_forward_kernel", "_rms_norm_backward_kernel", "_swiglu_forward_kernel",
                      "_swiglu_backward_kernel", "liger_cross_entropy_kernel"}, list(k)
    assert all(e["package"] == "liger_kernel" and e["version"] == "0.8.5" and e["calls"] == 2 for e in k.values())
    # float(loss) reads a tensor the cross-entropy kernel was given: reported, since nothing ran.
    reads = summary["cuda_emulation"]["host_reads"]
    assert any(r["kernel"] == "liger_cross_entropy_kernel" and r["file"].endswith("liger_train.py") for r in reads)
    assert any("RSTD_ptr (written by _rms_norm_forward_kernel)" in n for n in k["_rms_norm_backward_kernel"]["notes"])
    # (The RMSNorm forward calls libdevice's rsqrt, which Triton's interpreter cannot run.)
    tasks = [k[name]["task"] for name in ("_swiglu_forward_kernel", "_swiglu_backward_kernel",
                                          "liger_cross_entropy_kernel", "_rms_norm_backward_kernel")]
    lines = verify_on_cpu(tmp_path, *tasks)
    assert len(lines) == 4 and all(line.get("passed") for line in lines), lines
