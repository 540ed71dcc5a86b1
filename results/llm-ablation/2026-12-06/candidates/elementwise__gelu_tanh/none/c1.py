"""Elementwise: GELU, tanh approximation, of an fp16 (16384, 8192) MLP activation (537 MB moved).

y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), as in GPT-2 / BERT
(torch.nn.functional.gelu(x, approximate="tanh")).

Provenance: a direct translation of the formula into the tutorials' 1-D elementwise
kernel (01-vector-add): fp16 loaded and upcast to fp32 for the math, rounded back on the
store. triton.language has no tanh (only libdevice, which the interpreter cannot run), so
the draft writes tanh(z) = 2 * sigmoid(2z) - 1, as first drafts commonly do.

Weaknesses: fixed BLOCK_SIZE=1024, default num_warps=4, no autotuning; one program per
1024 elements (131,072 programs, no grid-stride loop); tanh built from sigmoid costs an
exp plus an IEEE-rounded fp32 division per element, and the extra (1 + tanh) * 0.5 * x
steps, where 0.5 * (1 + tanh(z)) is simply sigmoid(2z) and a hardware tanh.approx.f32 or
ex2.approx + rcp.approx would be well inside fp16 accuracy; bounds mask on every access.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    k0 = 0.7978845608028654  # sqrt(2 / pi)
    inner = k0 * (x + 0.044715 * x * x * x)
    tanh_inner = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    y = 0.5 * x * (1.0 + tanh_inner)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def launch(x):
    assert x.is_contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)
    gelu_tanh_kernel[grid](x, out, n, BLOCK_SIZE=1024)
    return out


def reference(x):
    return torch.nn.functional.gelu(x.float(), approximate="tanh").to(x.dtype)


def make_inputs(device):
    # 16K tokens x 8192 (the 4x MLP width of a 2048-wide model): 268 MB in, 268 MB out
    x = torch.randn(16384, 8192, device=device, dtype=torch.float16)
    return (x,)


def make_small_inputs(device):
    x = torch.randn(7, 733, device=device, dtype=torch.float16)  # 5131 elements: partial last block
    return (x,)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime row length, one element
    return [
        make_small_inputs(device),  # 7 x 733 = 5131 elements: five full blocks and a partial sixth
        (torch.randn(11, 521, device=device, dtype=torch.float16),),  # 5731 elements (prime rows): 611 in the last block
        (torch.randn(1, 1, device=device, dtype=torch.float16),),  # one element: one program, 1023 lanes masked
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 5e-3, "atol": 5e-3}
