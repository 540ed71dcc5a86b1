"""round-by-truncation applies: the per-tensor quantization after even-shape-heuristic split it into
`if EVEN_N_ELEMENTS:` / `else:`, with the rounding reassigning the name it reads (`v = tl.where(v
>= 0, ...)`). Neither the statement's own right-hand side nor the other branch sees the rounded
value, so the taken branch is rewritten."""
import torch
import triton
import triton.language as tl


@triton.jit
def quantize_kernel(x_ptr, q_ptr, inv_scale, n_elements, BLOCK: tl.constexpr, EVEN_N_ELEMENTS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    if EVEN_N_ELEMENTS:
        v = tl.load(x_ptr + offs).to(tl.float32) * inv_scale
        v = tl.where(v >= 0, tl.floor(v + 0.5), tl.ceil(v - 0.5))
        tl.store(q_ptr + offs, v.to(tl.int8))
    else:
        v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32) * inv_scale
        v = tl.where(v >= 0, tl.floor(v + 0.5), tl.ceil(v - 0.5))
        tl.store(q_ptr + offs, v.to(tl.int8), mask=mask)


def launch(x, inv_scale):
    q = torch.empty(x.shape, device=x.device, dtype=torch.int8)
    n = x.numel()
    quantize_kernel[(triton.cdiv(n, 4096),)](x, q, inv_scale, n, BLOCK=4096, EVEN_N_ELEMENTS=n % 4096 == 0)
    return q


def reference(x, inv_scale):
    v = x.float() * torch.tensor(inv_scale, dtype=torch.float32, device=x.device)
    return torch.where(v >= 0, torch.floor(v + 0.5), torch.ceil(v - 0.5)).to(torch.int8)


def make_inputs(device):
    return (torch.randn(4096, 4096, device=device, dtype=torch.float16), 31.75)


def make_small_inputs(device):
    x = torch.cat([torch.randn(8112, device=device), (torch.arange(-40, 40, device=device) + 0.5) / 31.75])
    return (x.to(torch.float16), 31.75)  # 8192 elements: the even branch


def bytes_moved(x, inv_scale):
    return x.numel() * 3


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
