"""grow-block applies: the grid is a lambda of the launch's meta-parameters, so it already
follows BLOCK; the recipe changes only the BLOCK=32 argument (to 1024)."""
import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    relu_kernel[grid](x, out, n, BLOCK=1024)
    return out


def reference(x):
    return torch.relu(x)


def make_inputs(device):
    return (torch.randn(300_000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
