"""constexpr-divisor refuses: the permute of applies.py, with D, S and H powers of two for the
captured launch (l2-int-div-mod-index proposes the recipe), but the kernel asks the JIT not to
specialize them: making them tl.constexpr would compile a kernel per value, which the author ruled
out, so the recipe declines."""
# DECLINES: no divisor can become a tl.constexpr
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["S", "H", "D"])
def permute_kernel(x_ptr, out_ptr, n_elements, S, H, D,
                   stride_xb, stride_xs, stride_xh, stride_xd, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    d = offs % D
    s = (offs // D) % S
    h = (offs // (D * S)) % H
    b = offs // (D * S * H)
    x = tl.load(x_ptr + b * stride_xb + s * stride_xs + h * stride_xh + d * stride_xd, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def launch(x):
    B, S, H, D = x.shape
    out = torch.empty((B, H, S, D), device=x.device, dtype=x.dtype)
    n = out.numel()
    permute_kernel[(triton.cdiv(n, 1024),)](x, out, n, S, H, D,
                                            x.stride(0), x.stride(1), x.stride(2), x.stride(3), BLOCK=1024)
    return out


def reference(x):
    return x.permute(0, 2, 1, 3).contiguous()


def make_inputs(device):
    return (torch.randn(2, 64, 8, 32, device=device, dtype=torch.float16),)


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
