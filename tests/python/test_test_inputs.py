"""Verification at more shapes than the benchmark's: make_test_inputs (or make_small_inputs),
run as the C++ side runs it (the verify verb on "cpu", under the Triton interpreter)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# With bound n - n % BLOCK the loads of the last, partial block read zeros, so the kernel is right whenever n is
# a multiple of BLOCK (make_inputs' 4096) and wrong at 1000.
KERNEL = '''
import torch, triton, triton.language as tl

@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < {bound}, other=0.0)
    tl.store(out_ptr + offs, x * 2, mask=offs < n)

def launch(x):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    return out

def reference(x):
    return 2 * x

def make_inputs(device):
    return (torch.randn(4096, device=device),)
'''

TEST_INPUTS = '''
def make_test_inputs(device):
    return [(torch.randn(256, device=device),), (torch.randn(1000, device=device),),
            (torch.randn(1, device=device),)]
'''


def verify_reply(tmp_path, source):
    """The verify verb's whole reply for `source` on "cpu", one draw."""
    path = tmp_path / "task.py"
    path.write_text(source)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop("TRITON_INTERPRET", None)
    done = subprocess.run([sys.executable, "-m", "tritondx_bridge", "verify"],
                          input=json.dumps({"task": str(path), "device": "cpu", "draws": 1}), capture_output=True,
                          text=True, env=env, timeout=600)
    return json.loads(done.stdout)


def verify(tmp_path, source):
    reply = verify_reply(tmp_path, source)
    assert reply["ok"], reply
    return reply["correctness"]


def test_a_kernel_right_at_the_benchmark_shape_fails_at_an_odd_test_shape(tmp_path):
    c = verify(tmp_path, KERNEL.format(bound="n - n % BLOCK") + TEST_INPUTS)
    assert not c["passed"]
    assert c["draws"][0]["passed"] and c["draws"][0]["test_input"] is None, "make_inputs' 4096 is a multiple of BLOCK"
    assert c["draws"][1]["passed"] and c["draws"][1]["test_input"] == 0
    failed = c["draws"][2]
    assert failed["test_input"] == 1 and not failed["passed"]
    assert failed["inputs"] == "test input 1 (1000 float32)"
    assert failed["failures"][0]["message"].startswith("at test input 1 (1000 float32): against the reference: ")
    assert failed["failures"][0]["test_input"] == 1
    assert c["test_inputs"] == 3 and c["test_inputs_checked"] == 2, "the check stops at the first failure"


def test_the_masked_kernel_passes_at_every_shape(tmp_path):
    c = verify(tmp_path, KERNEL.format(bound="n") + TEST_INPUTS)
    assert c["passed"], c
    assert [d["test_input"] for d in c["draws"]] == [None, 0, 1, 2]
    assert "shapes_note" not in c


def test_make_small_inputs_stands_in_and_no_test_shapes_is_said(tmp_path):
    masked = KERNEL.format(bound="n")
    c = verify(tmp_path, masked + "\ndef make_small_inputs(device):\n    return (torch.randn(37, device=device),)\n")
    assert c["passed"] and c["test_inputs"] == 1
    assert c["draws"][1]["inputs"] == "make_small_inputs (37 float32)"
    c = verify(tmp_path, masked)
    assert c["passed"] and c["test_inputs"] == 0
    assert c["shapes_note"].startswith("checked at make_inputs' shapes only")


def test_make_test_inputs_that_is_not_a_list_is_a_clear_error(tmp_path):
    reply = verify_reply(tmp_path, KERNEL.format(bound="n") + "\ndef make_test_inputs(device):\n    return None\n")
    assert not reply["ok"]
    assert reply["error"]["kind"] == "bad-inputs"
    assert "make_test_inputs must return a non-empty list of input tuples" in reply["error"]["message"]


def test_a_test_shape_the_reference_rejects_is_a_clear_error(tmp_path):
    source = KERNEL.format(bound="n").replace("    return 2 * x", "    return (2 * x).view(-1, 2).view(-1)")
    reply = verify_reply(tmp_path, source + "\ndef make_test_inputs(device):\n    return [(torch.randn(7, device=device),)]\n")
    assert not reply["ok"]
    assert reply["error"]["kind"] == "bad-inputs"
    assert reply["error"]["message"].startswith("the reference fails at test input 0 (7 float32): RuntimeError: ")


# `rows_mask and cols_mask`: compiled Triton ands the two masks; Python's `and` returns the second
# whole. Under the interpreter shim both mean the same (interpreter_shim.install_interpreter_shim):
# the last row block of 5 rows covers 8, and without the row mask its store would write 3 rows past
# the output.
BOOL_OP_KERNEL = '''
import torch, triton, triton.language as tl

@triton.jit
def copy_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < M) and (cols < N)
    keep = (rows >= 0) or (cols < 0)
    x = tl.load(x_ptr + rows * N + cols, mask=mask, other=0.0)
    tl.store(out_ptr + rows * N + cols, tl.where(keep, x + 1, x), mask=mask)

def launch(x):
    out = torch.zeros_like(x)
    copy_kernel[(triton.cdiv(x.shape[0], 8),)](x, out, x.shape[0], x.shape[1], BLOCK_M=8, BLOCK_N=32)
    return out

def reference(x):
    return x + 1

def make_inputs(device):
    return (torch.randn(16, 30, device=device),)

def make_test_inputs(device):
    return [(torch.randn(5, 30, device=device),)]
'''


def test_and_or_of_tensors_mean_what_compiled_triton_means(tmp_path):
    c = verify(tmp_path, BOOL_OP_KERNEL)
    assert c["passed"], c
    assert c["test_inputs_checked"] == 1
