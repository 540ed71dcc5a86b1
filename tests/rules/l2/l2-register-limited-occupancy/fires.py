"""A memory-bound row scaling with a 16384-element block on 4 warps: every thread keeps 128
elements of two tensors live (the row is reused after its sum), which takes most of the 255
registers and leaves room for one or two CTAs (4-8 warps) per SM."""
import torch
import triton
import triton.language as tl


@triton.jit
def normalize_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):  # CHECK: l2-register-limited-occupancy
    row = tl.program_id(0)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    total = tl.sum(x * x, axis=0)
    tl.store(out_ptr + offs, x / tl.sqrt(total))


def launch(x):
    out = torch.empty_like(x)
    normalize_kernel[(x.shape[0],)](x, out, BLOCK=x.shape[1], num_warps=4)
    return out


def reference(x):
    return x / torch.sqrt((x * x).sum(dim=1, keepdim=True))


def make_inputs(device):
    return (torch.randn(64, 16384, device=device, dtype=torch.float32),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}
