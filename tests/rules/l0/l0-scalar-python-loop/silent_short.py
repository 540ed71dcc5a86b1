"""l0-scalar-python-loop stays silent: a 4-iteration loop over per-row scalars is not worth a block."""
import torch
import triton
import triton.language as tl


@triton.jit
def weighted_kernel(x_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(4):
        w = tl.load(w_ptr + k)
        acc += w * tl.load(x_ptr + k * n + offs, mask=mask)
    tl.store(out_ptr + offs, acc, mask=mask)


def launch(x, w):
    n = x.shape[1]
    out = torch.empty(n, device=x.device, dtype=x.dtype)
    weighted_kernel[(triton.cdiv(n, 1024),)](x, w, out, n, BLOCK=1024)
    return out


def reference(x, w):
    return (w[:, None] * x).sum(dim=0)


def make_inputs(device):
    return (torch.randn(4, 100_000, device=device), torch.randn(4, device=device))


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
