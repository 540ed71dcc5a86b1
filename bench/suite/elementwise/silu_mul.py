"""Elementwise: SwiGLU gate out = silu(a) * b on bf16 (8192, 14336) tensors (705 MB moved).

The gate of a Llama-style MLP (Llama-3-8B: intermediate size 14336) for 8192 tokens:
a = x @ W_gate, b = x @ W_up, out = silu(a) * b = a * sigmoid(a) * b.

Provenance: the tutorials' 1-D elementwise kernel (01-vector-add) with the SwiGLU math,
computed in fp32 and rounded to bf16 once on the store (the pattern of the Liger / Unsloth
swiglu forward kernels, written as a flat 1-D kernel over separate a and b tensors).

Weaknesses: fixed BLOCK_SIZE=1024, default num_warps=4, no autotuning; one program per
1024 elements (114,688 programs, no grid-stride loop); tl.sigmoid is 1 / (1 + exp(-a))
with an IEEE-rounded fp32 division where rcp.approx would be well inside bf16 accuracy;
bounds mask on every access; no eviction hints for streamed data.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def silu_mul_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask).to(tl.float32)
    out = a * tl.sigmoid(a) * b
    tl.store(out_ptr + offsets, out.to(out_ptr.dtype.element_ty), mask=mask)


def launch(a, b):
    assert a.shape == b.shape and a.is_contiguous() and b.is_contiguous()
    out = torch.empty_like(a)
    n = a.numel()
    grid = (triton.cdiv(n, 1024),)
    silu_mul_kernel[grid](a, b, out, n, BLOCK_SIZE=1024)
    return out


def reference(a, b):
    return (torch.nn.functional.silu(a.float()) * b.float()).to(a.dtype)


def make_inputs(device):
    # 8192 tokens x 14336 (Llama-3-8B intermediate size): 235 MB per tensor
    a = torch.randn(8192, 14336, device=device, dtype=torch.bfloat16)
    b = torch.randn(8192, 14336, device=device, dtype=torch.bfloat16)
    return (a, b)


def make_small_inputs(device):
    a = torch.randn(5, 1001, device=device, dtype=torch.bfloat16)  # 5005 elements: partial last block
    b = torch.randn(5, 1001, device=device, dtype=torch.bfloat16)
    return (a, b)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime row length, one element
    return [
        make_small_inputs(device),  # 5 x 1001 = 5005 elements: four full blocks and a partial fifth
        # 7 x 617 = 4319 elements (prime rows): four full blocks and 223 in the fifth
        (torch.randn(7, 617, device=device, dtype=torch.bfloat16),
         torch.randn(7, 617, device=device, dtype=torch.bfloat16)),
        # one element: one program, 1023 lanes masked
        (torch.randn(1, 1, device=device, dtype=torch.bfloat16),
         torch.randn(1, 1, device=device, dtype=torch.bfloat16)),
    ]


def bytes_moved(a, b):
    return 3 * a.numel() * a.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
