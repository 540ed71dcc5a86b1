"""grow-block applies to a block a @triton.heuristics computes: the heuristic picks BLOCK=32 for
this launch (l0-tiny-block fires), and the grid reads BLOCK from meta. The recipe keeps the
heuristic's policy and scales its choice: a second heuristic right above @triton.jit (it runs
after the first) sets BLOCK to the first one's value times 32, for every shape."""
import torch
import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: min(32, triton.next_power_of_2(args["n"]))})
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
    relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return out


def reference(x):
    return torch.relu(x)


def make_inputs(device):
    return (torch.randn(300_000, device=device),)


def make_small_inputs(device):
    return (torch.randn(5000, device=device),)


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
