"""Elementwise: out = x + bias[None, :] + residual on fp16 (16384, 8192) activations (805 MB moved).

The "bias-dropout-add" after an attention or MLP output projection (Megatron-LM's
bias_dropout_add) with dropout off, as at inference: 16K tokens, hidden size 8192.

Provenance: the tutorials' 1-D elementwise kernel (01-vector-add) over the flattened
(M, N) matrix, the bias broadcast by a direct translation of bias[None, :] to
bias[offset % N]; the adds stay in fp16, in PyTorch's order ((x + bias) + residual).

Weaknesses: fixed BLOCK_SIZE=1024, default num_warps=4, no autotuning; one program per
1024 elements (131,072 programs, no grid-stride loop); an integer modulo per element to
find the bias column, and the bias gathered (through L1/L2) once per element instead of
loaded once per column tile with a 2-D (rows x columns) tiling; bounds mask on every access;
no eviction hints for streamed data.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def bias_residual_kernel(x_ptr, bias_ptr, res_ptr, out_ptr, n_elements, n_cols, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    cols = offsets % n_cols
    x = tl.load(x_ptr + offsets, mask=mask)
    b = tl.load(bias_ptr + cols, mask=mask)
    r = tl.load(res_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + b + r, mask=mask)


def launch(x, bias, residual):
    assert x.dim() == 2 and x.shape == residual.shape and bias.shape == (x.shape[1],)
    assert x.is_contiguous() and residual.is_contiguous() and bias.is_contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)
    bias_residual_kernel[grid](x, bias, residual, out, n, x.shape[1], BLOCK_SIZE=1024)
    return out


def reference(x, bias, residual):
    return x + bias[None, :] + residual


def make_inputs(device):
    # 16K tokens x hidden 8192: 268 MB per (M, N) tensor, the bias is 16 KB
    x = torch.randn(16384, 8192, device=device, dtype=torch.float16)
    bias = torch.randn(8192, device=device, dtype=torch.float16)
    residual = torch.randn(16384, 8192, device=device, dtype=torch.float16)
    return (x, bias, residual)


def make_small_inputs(device):
    # 37 x 139 = 5143 elements: rows do not line up with blocks, the last block is partial
    x = torch.randn(37, 139, device=device, dtype=torch.float16)
    bias = torch.randn(139, device=device, dtype=torch.float16)
    residual = torch.randn(37, 139, device=device, dtype=torch.float16)
    return (x, bias, residual)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime width, one element
    return [
        make_small_inputs(device),  # 37 x 139 = 5143: rows do not line up with blocks, the last block partial
        # 61 x 131 = 7991 (prime width): another bias period across block edges, the last block 823 full
        (torch.randn(61, 131, device=device, dtype=torch.float16),
         torch.randn(131, device=device, dtype=torch.float16),
         torch.randn(61, 131, device=device, dtype=torch.float16)),
        # one row of one column: n_elements = n_cols = 1, every offset maps to bias[0], one lane in bounds
        (torch.randn(1, 1, device=device, dtype=torch.float16),
         torch.randn(1, device=device, dtype=torch.float16),
         torch.randn(1, 1, device=device, dtype=torch.float16)),
    ]


def bytes_moved(x, bias, residual):
    return (3 * x.numel() + bias.numel()) * x.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
