"""even-shape-heuristic applies to an autotuned kernel: the streaming add of applies.py, but its
@triton.autotune configs set BLOCK (1024, 2048) and the grid reads it from meta, so the launch
cannot compute n % BLOCK. The recipe adds the EVEN_N constexpr with a @triton.heuristics right
above @triton.jit, which sees each config's BLOCK: n % BLOCK == 0 per config. The small inputs
(4096 elements) are even for both configs: the interpreter runs the unmasked path."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4), triton.Config({"BLOCK": 2048}, num_warps=8)],
                 key=["n"])
@triton.heuristics({"EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if EVEN_N:
        x = tl.load(x_ptr + offs)
        y = tl.load(y_ptr + offs)
        tl.store(out_ptr + offs, x + y)
    else:
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 262_144
    return (torch.randn(n, device=device), torch.randn(n, device=device))


def make_small_inputs(device):
    n = 4096
    return (torch.randn(n, device=device), torch.randn(n, device=device))


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
