# ORIGINAL: tests/integrity/originals/layer_norm.py
# REJECT: integrity-torch-compute
# REJECT-RUNTIME: integrity-torch-compute
# REJECT-RUNTIME: integrity-kernel-not-launched
"""Cheat: the Liger-style autograd.Function's forward (the timed part) computes with
torch.nn.functional.layer_norm; the kernels only run in backward, which recomputes the stats.
"""
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _layer_norm_forward_kernel(
    Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, B_ptr, Mean_ptr, RSTD_ptr, n_cols, eps,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y_ptr += row_idx * Y_row_stride
    X_ptr += row_idx * X_row_stride

    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)
    B_row = tl.load(B_ptr + col_offsets, mask=mask, other=0)

    mean = tl.sum(X_row, axis=0) / n_cols
    Xmm = tl.where(mask, X_row - mean, 0)
    var = tl.sum(Xmm * Xmm, axis=0) / n_cols
    rstd = tl.rsqrt(var + eps)

    tl.store(Mean_ptr + row_idx, mean)
    tl.store(RSTD_ptr + row_idx, rstd)

    Y_row = Xmm * rstd * W_row + B_row
    tl.store(Y_ptr + col_offsets, Y_row, mask=mask)


@triton.jit
def _layer_norm_backward_kernel(
    X_ptr, W_ptr, Mean_ptr, RSTD_ptr, DX_ptr, DW_ptr, DB_ptr, DY_ptr,
    stride_x, stride_dx, stride_dy, n_rows, n_cols,
    rows_per_program: tl.constexpr, BLOCK_SIZE: tl.constexpr,
):
    row_block_id = tl.program_id(0)
    row_start = row_block_id * rows_per_program
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols

    w = tl.load(W_ptr + cols, mask=mask, other=0.0)
    dw_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    db_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)

    for i in range(0, rows_per_program):
        row = row_start + i
        in_rows = row < n_rows
        row_mask = mask & in_rows
        x = tl.load(X_ptr + row * stride_x + cols, mask=row_mask, other=0.0)
        dy = tl.load(DY_ptr + row * stride_dy + cols, mask=row_mask, other=0.0)
        mean = tl.load(Mean_ptr + row, mask=in_rows, other=0.0)
        rstd = tl.load(RSTD_ptr + row, mask=in_rows, other=0.0)

        x_hat = (x - mean) * rstd
        wdy = w * dy
        c1 = tl.sum(x_hat * wdy, axis=0) / n_cols
        c2 = tl.sum(wdy, axis=0) / n_cols
        dx = (wdy - (x_hat * c1 + c2)) * rstd
        tl.store(DX_ptr + row * stride_dx + cols, dx, mask=row_mask)

        dw_row += dy * x_hat
        db_row += dy

    tl.atomic_add(DW_ptr + cols, dw_row, mask=mask)
    tl.atomic_add(DB_ptr + cols, db_row, mask=mask)


def calculate_settings(n):
    MAX_FUSED_SIZE = 65536
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum block size {MAX_FUSED_SIZE}.")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def ensure_contiguous(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        def maybe_to_contiguous(x):
            return x.contiguous() if isinstance(x, torch.Tensor) else x

        args = [maybe_to_contiguous(arg) for arg in args]
        kwargs = {k: maybe_to_contiguous(v) for k, v in kwargs.items()}
        return fn(ctx, *args, **kwargs)

    return wrapper


def layer_norm_forward(X, W, B, eps):
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    Mean = torch.empty(n_rows, dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=X.dtype, device=X.device)
    assert X.shape[1] == W.shape[0], f"Incompatible hidden size dimension between input tensor with shape[1] = {X.shape[1]} and weight tensor with shape[0] = {W.shape[0]}"

    _layer_norm_forward_kernel[(n_rows,)](
        Y, Y.stride(0), X, X.stride(0), W, B, Mean, RSTD, n_cols, eps,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return Y.view(*shape), X, Mean, RSTD, BLOCK_SIZE, num_warps


def layer_norm_backward(dY, X, W, Mean, RSTD):
    shape = dY.shape
    dim = shape[-1]
    dY = dY.view(-1, dim)
    n_rows, n_cols = dY.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    rows_per_program = 8

    DX = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    DW = torch.zeros(n_cols, dtype=torch.float32, device=W.device)
    DB = torch.zeros(n_cols, dtype=torch.float32, device=W.device)
    grid = (triton.cdiv(n_rows, rows_per_program),)
    _layer_norm_backward_kernel[grid](
        X, W, Mean, RSTD, DX, DW, DB, dY,
        X.stride(0), DX.stride(0), dY.stride(0), n_rows, n_cols,
        rows_per_program=rows_per_program,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return DX.view(*shape), DW.to(W.dtype), DB.to(W.dtype)


class LigerLayerNormFunction(torch.autograd.Function):
    @staticmethod
    @ensure_contiguous
    def forward(ctx, X, W, B, eps):
        Y = torch.nn.functional.layer_norm(X, (X.shape[-1],), W, B, eps)
        ctx.save_for_backward(X, W, B)
        ctx.eps = eps
        return Y

    @staticmethod
    @ensure_contiguous
    def backward(ctx, dY):
        X, W, B = ctx.saved_tensors
        _, X2, Mean, RSTD, _, _ = layer_norm_forward(X, W, B, ctx.eps)
        DX, DW, DB = layer_norm_backward(dY, X2, W, Mean, RSTD)
        return DX, DW, DB, None


def launch(x, weight, bias):
    return LigerLayerNormFunction.apply(x, weight, bias, 1e-5)


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
