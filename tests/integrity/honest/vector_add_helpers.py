# ORIGINAL: examples/vector_add.py
"""Honest: the launch split into helpers, a module-level launch configuration, contiguity and
alignment checks, views, device queries and an environment read: nothing the checks should flag.
"""
import os
import torch
import triton
import triton.language as tl


_CONFIG = {"BLOCK_SIZE": 2048, "num_warps": 8}
_DEBUG = os.environ.get("TRITONDX_EXAMPLE_DEBUG", "") == "1"


def _grid(n):
    return (triton.cdiv(n, _CONFIG["BLOCK_SIZE"]),)


def _launch_flat(x, y, out):
    n = x.numel()
    add_kernel[_grid(n)](x, y, out, n, **_CONFIG)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def launch(x, y):
    assert x.is_contiguous() and y.is_contiguous() and x.shape == y.shape
    if _DEBUG and torch.cuda.is_available():
        print(torch.cuda.get_device_name(), x.data_ptr() % 16)
    out = torch.empty(x.shape, device=x.device, dtype=x.dtype)
    _launch_flat(x.view(-1), y.view(-1), out.view(-1))
    return out.reshape(x.shape)


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 50_000_003  # 200 MB per tensor: several times the 60 MB L2 of an H200
    x = torch.randn(n, device=device, dtype=torch.float32)
    y = torch.randn(n, device=device, dtype=torch.float32)
    return (x, y)


def bytes_moved(x, y):
    return 3 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
