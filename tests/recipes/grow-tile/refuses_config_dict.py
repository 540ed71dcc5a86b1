"""grow-tile refuses: the tile sizes reach the launch call through **config, so there is no
argument to change; the recipe declines."""
# DECLINES: the launch call does not pass BLOCK_M
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rows[:, None] * stride + cols[None, :]
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


CONFIG = {"BLOCK_M": 16, "BLOCK_N": 16}


def launch(x):
    M, N = x.shape
    out = torch.empty_like(x)
    grid = (triton.cdiv(M, CONFIG["BLOCK_M"]), triton.cdiv(N, CONFIG["BLOCK_N"]))
    copy_kernel[grid](x, out, M, N, x.stride(0), **CONFIG)
    return out


def reference(x):
    return x.clone()


def make_inputs(device):
    return (torch.randn(512, 512, device=device),)


TOLERANCE = {"rtol": 0, "atol": 0}
