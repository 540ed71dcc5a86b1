"""l0-multi-pass-reduction fires on a chunked layer norm (Triton's tutorial shape): a mean pass,
a variance pass and a normalize pass each reload the row. There is no max pass followed by a sum
of exponentials, so the finding proposes single-pass-reduction and advice (Welford's online
mean/variance), not online-softmax (test_finding_details.cpp checks the proposals)."""
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)  # CHECK: l0-multi-pass-reduction
        acc += x
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        acc += d * d
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        tl.store(y_row + cols, (x - mean) * rstd * w + b, mask=mask)


def launch(x, w, b):
    rows, cols = x.shape
    y = torch.empty_like(x)
    layer_norm_kernel[(rows,)](x, y, w, b, x.stride(0), cols, 1e-5, BLOCK=1024)
    return y


def reference(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, 1e-5)


def make_inputs(device):
    return (torch.randn(1024, 8192, device=device), torch.randn(8192, device=device),
            torch.randn(8192, device=device))


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
