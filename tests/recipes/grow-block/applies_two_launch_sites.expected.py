"""grow-block applies to the launch call that the capture ran when the task launches the kernel
from two places (FlagGems picks a launch by shape): small inputs take one program over the whole
tensor, large ones 64-element blocks (l0-tiny-block). The capture records the task line that made
the launch, so the recipe edits the second call (BLOCK=64 -> 1024, the grid follows) and leaves
the first alone."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    if n <= 4096:
        add_kernel[(1,)](x, y, out, n, BLOCK=4096)
    else:
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 1_000_003
    return (torch.randn(n, device=device), torch.randn(n, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
