"""Layer norm over the last dimension of fp32 rows: one program per row, the whole row in
registers. The original of the layer-norm candidates in tests/integrity/honest and cheats.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(y_ptr, x_ptr, w_ptr, b_ptr, row_stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * row_stride + cols, xc * rstd * w + b, mask=mask)


def launch(x, weight, bias):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    layer_norm_kernel[(n_rows,)](y, x, weight, bias, x.stride(0), n_cols, 1e-5, BLOCK=triton.next_power_of_2(n_cols))
    return y


def reference(x, weight, bias):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps=1e-5)


def make_inputs(device):
    x = torch.randn(8192, 4096, device=device, dtype=torch.float32)  # 128 MB
    weight = torch.rand(4096, device=device, dtype=torch.float32) + 0.5
    bias = torch.randn(4096, device=device, dtype=torch.float32)
    return (x, weight, bias)


def bytes_moved(x, weight, bias):
    return 2 * x.numel() * x.element_size()


def flops(x, weight, bias):
    return 8 * x.numel()


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
