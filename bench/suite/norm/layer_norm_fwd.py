"""Layer norm forward: y = (x - mean) / sqrt(var + eps) * w + b over rows of a (16384, 4096) fp16 matrix, fp32 weight/bias.

Provenance: the forward kernel of the Triton "Layer Normalization" tutorial (03/05), written as
a first draft: one program per row, three loops over the row in chunks of 1024 columns (the mean,
then the variance around that mean, then normalize and store), statistics in fp32. It returns y
only (an inference forward: the per-row mean/rstd are not saved).

Weaknesses: the row is read from global memory three times (4096 fp16 = 8 KB per row, so the
two re-reads mostly hit L2/L1 but still cost load instructions and latency) where a single-pass
Welford or a whole-row register tile would read it once; a fixed BLOCK of 1024 and the default
num_warps (4) with no autotuning, so each loop iteration gives a thread only 8 fp16 elements and
little memory-level parallelism; the loops are not software-pipelined (no `tl.range(...,
num_stages=)`), so every iteration waits for its loads; one program per row with no persistent scheduling; the weight
and bias are fp32 and re-read by every row (from L2).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, x_row_stride, y_row_stride, n_cols, eps,
                          BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_row_stride
    y_row = y_ptr + row * y_row_stride

    # pass 1: mean
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x
    mean = tl.sum(acc, axis=0) / n_cols

    # pass 2: variance around the mean
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)

    # pass 3: normalize, scale, shift, store
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        y = (x - mean) * rstd * w + b
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


EPS = 1e-5


def launch(x, weight, bias):
    rows, cols = x.shape
    y = torch.empty_like(x)
    layer_norm_fwd_kernel[(rows,)](x, y, weight, bias, x.stride(0), y.stride(0), cols, EPS, BLOCK=1024)
    return y


def reference(x, weight, bias):
    return torch.nn.functional.layer_norm(x.float(), (x.shape[1],), weight, bias, EPS).to(x.dtype)


def _inputs(device, rows, cols):
    x = torch.randn(rows, cols, device=device, dtype=torch.float16)
    weight = 1.0 + 0.1 * torch.randn(cols, device=device, dtype=torch.float32)
    bias = 0.1 * torch.randn(cols, device=device, dtype=torch.float32)
    return (x, weight, bias)


def make_inputs(device):
    return _inputs(device, 16384, 4096)  # x and y: 134 MB each


def make_small_inputs(device):
    return _inputs(device, 5, 1500)  # 1500 columns: two chunks of 1024, the second masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime width with a short last chunk, one full-width row
    return [
        make_small_inputs(device),  # 5 x 1500: two chunks of 1024 per pass, the second with 476 columns
        _inputs(device, 7, 2053),  # a prime width (and row stride): three chunks per pass, the last only 5 columns
        _inputs(device, 1, 4096),  # one row at the realistic width: one program, four full chunks, no mask
    ]


def bytes_moved(x, weight, bias):
    return 2 * x.numel() * x.element_size() + weight.numel() * 4 + bias.numel() * 4


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
