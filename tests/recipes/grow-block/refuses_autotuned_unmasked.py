"""grow-block refuses on an autotuned kernel: the config sets BLOCK=32, but the store is indexed by
the block without a mask (the wrapper pads the output to a multiple of 32). A config with a larger
block would write past the padded buffer, so no config is added."""
# DECLINES: is indexed by BLOCK without a mask: a larger block would read past
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 32}, num_warps=4)], key=["n"])
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0))


def launch(x):
    n = x.numel()
    out = torch.empty(triton.cdiv(n, 32) * 32, device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    relu_kernel[grid](x, out, n)
    return out[:n]


def reference(x):
    return torch.relu(x)


def make_inputs(device):
    return (torch.randn(300_000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
