"""fuse-max-argmax refuses: the argmax reduces the tensor after it changed (no finding proposes it)."""
import torch
import triton
import triton.language as tl


@triton.jit
def shifted_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols)
    m = tl.max(x, axis=0)
    x = tl.abs(x)
    i = tl.argmax(x, axis=0)
    tl.store(out_ptr + row * 2, m)
    tl.store(out_ptr + row * 2 + 1, i.to(tl.float32))


def launch(x):
    out = torch.empty((x.shape[0], 2), device=x.device, dtype=x.dtype)
    shifted_kernel[(x.shape[0],)](x, out, BLOCK=x.shape[1])
    return out


def reference(x):
    return torch.stack([x.max(dim=1).values, x.abs().argmax(dim=1).to(x.dtype)], dim=1)


def make_inputs(device):
    return (torch.randn(32, 128, device=device),)
