"""reciprocal-division refuses: the divisor comes from a @triton.jit helper, whose result's shape the
source does not show, so the recipe cannot tell that one reciprocal serves many quotients (the
compiled divisor is a splat and l2-narrow-pipe-bound proposes the recipe; the recipe declines)."""
# DECLINES: the shapes of scale and of the quotient are not known from the source
import torch
import triton
import triton.language as tl


@triton.jit
def absmax_scale(x):
    return tl.math.div_rn(tl.maximum(tl.max(tl.abs(x), axis=0), 1e-8), 127.0)


@triton.jit
def quantize_kernel(x_ptr, q_ptr, scale_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    scale = absmax_scale(x)
    v = tl.math.div_rn(x, scale)
    v = v + tl.where(v >= 0, 0.5, -0.5)
    tl.store(q_ptr + row * n_cols + cols, v.to(tl.int8), mask=mask)
    tl.store(scale_ptr + row, scale)


def launch(x):
    rows, cols = x.shape
    q = torch.empty((rows, cols), device=x.device, dtype=torch.int8)
    scale = torch.empty((rows,), device=x.device, dtype=torch.float32)
    quantize_kernel[(rows,)](x, q, scale, cols, BLOCK=triton.next_power_of_2(cols))
    return q, scale


def reference(x):
    xf = x.float()
    scale = xf.abs().amax(dim=1).clamp_min(1e-8) / torch.full((x.shape[0],), 127.0, device=x.device)
    v = xf / scale[:, None]
    return torch.where(v >= 0, torch.floor(v + 0.5), torch.ceil(v - 0.5)).to(torch.int8), scale


def make_inputs(device):
    return (torch.randn(4096, 4096, device=device, dtype=torch.float16),)


def bytes_moved(x):
    return x.numel() * 3 + x.shape[0] * 4


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
