"""round-by-truncation applies: per-tensor int8 quantization with a given scale; the rounding half away
from zero goes through tl.floor and tl.ceil (two FRND per element) and its only use converts to int8."""
import torch
import triton
import triton.language as tl


@triton.jit
def quantize_kernel(x_ptr, q_ptr, inv_scale, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = x * inv_scale
    r = tl.where(v >= 0, tl.floor(v + 0.5), tl.ceil(v - 0.5))
    tl.store(q_ptr + offs, r.to(tl.int8), mask=mask)


def launch(x, inv_scale):
    q = torch.empty(x.shape, device=x.device, dtype=torch.int8)
    n = x.numel()
    quantize_kernel[(triton.cdiv(n, 4096),)](x, q, inv_scale, n, BLOCK=4096)
    return q


def reference(x, inv_scale):
    v = x.float() * torch.tensor(inv_scale, dtype=torch.float32, device=x.device)
    return torch.where(v >= 0, torch.floor(v + 0.5), torch.ceil(v - 0.5)).to(torch.int8)


def make_inputs(device):
    return (torch.randn(4096, 4096, device=device, dtype=torch.float16), 31.75)


def make_small_inputs(device):
    # Values on the .5 boundaries (x * 31.75 = k + 0.5 exactly) round away from zero.
    x = torch.cat([torch.randn(1000, device=device), (torch.arange(-40, 40, device=device) + 0.5) / 31.75])
    return (x.to(torch.float16), 31.75)


def bytes_moved(x, inv_scale):
    return x.numel() * 3


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
