"""single-pass-reduction applies to Triton's tutorial layer norm: its passes accumulate element-wise
(`_mean += a` into a BLOCK-wide tl.zeros, reduced after the loop), load into different names (`a`,
then `x`), the variance pass reassigns `x`, and the normalize pass loads the weight and bias
before the row. The accumulators become the row's values, `x` the first pass's `a`, the
reassigned `x` a fresh `x2`."""
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(X, Y, W, B, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    cols = tl.arange(0, BLOCK)
    a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    _mean = a
    mean = tl.sum(_mean, axis=0) / N
    x = a
    x2 = tl.where(cols < N, x - mean, 0.)
    _var = x2 * x2
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    mask = cols < N
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    x = a
    x_hat = (x - mean) * rstd
    y = x_hat * w + b
    tl.store(Y + cols, y, mask=mask)


def launch(x, w, b):
    y = torch.empty_like(x)
    layer_norm_kernel[(x.shape[0],)](x, y, w, b, x.stride(0), x.shape[1], 1e-5, BLOCK=triton.next_power_of_2(x.shape[1]))
    return y


def reference(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, 1e-5)


def make_inputs(device):
    return (torch.randn(128, 1000, device=device), torch.randn(1000, device=device), torch.randn(1000, device=device))


def make_small_inputs(device):
    return (torch.randn(6, 300, device=device), torch.randn(300, device=device), torch.randn(300, device=device))


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
