"""grow-block applies: the launch computes the block size (`min(64, triton.next_power_of_2(n))`,
64 for the captured input) into a variable that both the grid and the launch call read; the
recipe scales that computation by 1024 / 64 = 16, keeping its policy for other sizes, and the grid
follows."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2.0, mask=mask)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK_SIZE = min(64, triton.next_power_of_2(n))
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    scale_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out


def reference(x):
    return x * 2.0


def make_inputs(device):
    return (torch.randn(500_000, device=device),)


def make_small_inputs(device):
    return (torch.randn(3000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
