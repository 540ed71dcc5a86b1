"""round-by-truncation refuses: the rounded values are also summed as floats per block, so they must stay
integral floats (truncation in the int8 conversion would not give them); the recipe declines."""
# DECLINES: other than as `.to(<integer type>)`: the value must stay an integral
import torch
import triton
import triton.language as tl


@triton.jit
def quantize_kernel(x_ptr, q_ptr, sum_ptr, inv_scale, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = x * inv_scale
    r = tl.where(v >= 0, tl.floor(v + 0.5), tl.ceil(v - 0.5))
    tl.store(q_ptr + offs, r.to(tl.int8), mask=mask)
    tl.store(sum_ptr + tl.program_id(0), tl.sum(r, axis=0))


def launch(x, inv_scale):
    q = torch.empty(x.shape, device=x.device, dtype=torch.int8)
    sums = torch.empty(triton.cdiv(x.numel(), 4096), device=x.device, dtype=torch.float32)
    n = x.numel()
    quantize_kernel[(triton.cdiv(n, 4096),)](x, q, sums, inv_scale, n, BLOCK=4096)
    return q, sums


def reference(x, inv_scale):
    v = x.float() * torch.tensor(inv_scale, dtype=torch.float32, device=x.device)
    r = torch.where(v >= 0, torch.floor(v + 0.5), torch.ceil(v - 0.5))
    pad = (-r.numel()) % 4096
    sums = torch.nn.functional.pad(r.flatten(), (0, pad)).view(-1, 4096).sum(dim=1)
    return r.to(torch.int8), sums


def make_inputs(device):
    return (torch.randn(4096, 4096, device=device, dtype=torch.float16), 31.75)


def bytes_moved(x, inv_scale):
    return x.numel() * 3


TOLERANCE = {"rtol": 1e-5, "atol": 1e-3}
