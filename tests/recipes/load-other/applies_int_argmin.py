"""load-other applies: an int32 argmin over a masked block, the mask in a local name; the masked
lanes get the largest int32 so they never win."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_argmin_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask)
    tl.store(out_ptr + row, tl.argmin(x, axis=0))


def launch(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.int32)
    row_argmin_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x):
    return x.argmin(dim=1).to(torch.int32)


def make_inputs(device):
    return (torch.randint(1, 1000, (256, 600), device=device, dtype=torch.int32),)
