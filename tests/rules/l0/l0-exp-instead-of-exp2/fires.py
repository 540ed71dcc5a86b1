"""l0-exp-instead-of-exp2 fires: softmax with tl.exp(x - row_max) and a scaled tl.exp."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))  # CHECK: l0-exp-instead-of-exp2
    logits = x * scale
    scaled = tl.exp(logits)  # CHECK: l0-exp-instead-of-exp2
    plain = tl.exp(x)
    out = num / tl.sum(num, axis=0) + 0.0 * scaled + 0.0 * plain
    tl.store(out_ptr + row * stride + cols, out, mask=mask)


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](out, x, x.stride(0), cols, 0.5, BLOCK=triton.next_power_of_2(cols), num_warps=8)
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


def make_inputs(device):
    return (torch.randn(256, 2048, device=device),)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
