"""fuse-max-argmax applies: top-4 of each row by repeated max; max and argmax become one reduction."""
import torch
import triton
import triton.language as tl


@triton.jit
def top4_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    for k in range(4):
        m, i = tl.max(x, axis=0, return_indices=True)
        tl.store(out_ptr + row * 4 + k, m)
        x = tl.where(cols == i, -float("inf"), x)


def launch(x):
    out = torch.empty((x.shape[0], 4), device=x.device, dtype=x.dtype)
    top4_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out


def reference(x):
    return torch.topk(x, 4, dim=1).values


def make_small_inputs(device):
    return (torch.randn(7, 300, device=device),)


def make_inputs(device):
    return (torch.randn(128, 300, device=device),)
