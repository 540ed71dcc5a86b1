"""grow-block applies to an autotuned kernel: its only config sets BLOCK=32 (l0-tiny-block fires),
and the grid reads BLOCK from the config's meta. The recipe adds the same config with the larger
block to the autotuner's configs (a comprehension here, so the new config is put before it) and
leaves the launch alone; the autotuner keeps the old config and picks the faster."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4, num_stages=3)] + ([triton.Config({"BLOCK": b}, num_warps=4) for b in [32]]), key=["n"])
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
    relu_kernel[grid](x, out, n)
    return out


def reference(x):
    return torch.relu(x)


def make_inputs(device):
    return (torch.randn(300_000, device=device),)


def make_small_inputs(device):
    return (torch.randn(1000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
