"""`_rms_norm_backward_kernel`, captured by `tritondx capture` on the GPU from `examples/capture/liger_train.py`.

Provenance: /tmp/site/liger_kernel/ops/rms_norm.py:153 (package liger_kernel 0.8.5). Copied from that file: the kernel and the @triton.jit helpers and
constants it reads; the launch, make_inputs and make_test_inputs below repeat what the program did
(3 launch(es) in 1 configuration(s)). The original kernel is the reference.
"""
import json

import torch
import triton
import triton.language as tl

_CASTING_MODE_LLAMA = tl.constexpr(0)
_CASTING_MODE_GEMMA = tl.constexpr(1)


@triton.jit
def _rms_norm_backward_kernel(
    dY_ptr,
    dY_row_stride,
    dX_ptr,
    dX_row_stride,
    X_ptr,
    X_row_stride,
    X_dtype: tl.constexpr,
    W_ptr,
    W_row_stride,
    RSTD_ptr,
    RSTD_row_stride,
    dW_ptr,
    dW_row_stride,
    n_rows,
    n_cols,
    offset,
    rows_per_program,
    casting_mode: tl.constexpr,
    elementwise_affine: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    COMPUTE_DW: tl.constexpr = True,
):
    """
    dx = (1 / RMS) * [dy * (w + offset - (1 / N) * (1 / RMS^2) * ((dy * (w + offset)) dot x) * x]. * means element-wise multiplication, whileas dot means dot product
    dw = sum(dy * (x / RMS)). summation over BxT dimension
    """

    row_block_id = tl.program_id(0).to(tl.int64)
    row_start = row_block_id * rows_per_program
    row_end = min((row_block_id + 1) * rows_per_program, n_rows)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    if elementwise_affine and COMPUTE_DW:
        dW_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)

    if elementwise_affine:
        W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0.0)
        # Pin the fp64 scalar Inductor passes to fp32 (see _rms_norm_forward_kernel).
        W_row = W_row + offset.to(tl.float32)

    for row_idx in range(row_start, row_end):
        dy_base = dY_ptr + row_idx * dY_row_stride
        dx_base = dX_ptr + row_idx * dX_row_stride

        x_base = X_ptr + row_idx * X_row_stride
        rstd_base = RSTD_ptr + row_idx * RSTD_row_stride

        dY_row = tl.load(dy_base + col_offsets, mask=mask, other=0.0)
        X_row = tl.load(x_base + col_offsets, mask=mask, other=0.0)

        # Get cached rms
        rstd_row = tl.load(rstd_base)

        X_row = X_row.to(tl.float32)

        # Different backward graphs for different casting modes
        if casting_mode == _CASTING_MODE_LLAMA:
            if elementwise_affine:
                m = (dY_row * W_row).to(tl.float32)
            else:
                m = dY_row.to(tl.float32)

        elif casting_mode == _CASTING_MODE_GEMMA:
            dY_row = dY_row.to(tl.float32)
            if elementwise_affine:
                m = dY_row * W_row
            else:
                m = dY_row
        else:
            if elementwise_affine:
                m = dY_row * W_row
            else:
                m = dY_row

        dX_row = rstd_row * m

        dX_row += (rstd_row) * (-(1 / n_cols) * rstd_row * rstd_row * tl.sum(m * X_row, axis=0) * X_row)

        if elementwise_affine and COMPUTE_DW:
            # calculate the gradient of W
            if casting_mode == _CASTING_MODE_LLAMA:
                dW_row += dY_row * (X_row * rstd_row).to(X_dtype)
            else:
                # here X_row is already in fp32 (see previous if block)
                dW_row += dY_row * (X_row * rstd_row)

        tl.store(dx_base + col_offsets, dX_row.to(X_dtype), mask=mask)

    if elementwise_affine and COMPUTE_DW:
        tl.store(dW_ptr + row_block_id * dW_row_stride + col_offsets, dW_row, mask=mask)


# ---- the captured launch (tritondx capture)
# make_inputs draws CONFIGS[0], the most frequent configuration; make_test_inputs the others
CONFIGS = json.loads("""[
[{"kind": "tensor", "dtype": "bfloat16", "shape": [4096, 2048], "stride": [2048, 1], "offset": 0, "storage": 8388608, "data": {"kind": "float", "mean": -1.9503144758903357e-10, "std": 5.029602738538457e-07, "min": -2.339482307434082e-06, "max": 2.3245811462402344e-06}}, {"kind": "scalar", "value": 2048}, {"kind": "tensor", "dtype": "bfloat16", "shape": [4096, 2048], "stride": [2048, 1], "offset": 0, "storage": 8388608, "data": null}, {"kind": "scalar", "value": 2048}, {"kind": "tensor", "dtype": "bfloat16", "shape": [4096, 2048], "stride": [2048, 1], "offset": 0, "storage": 8388608, "data": {"kind": "float", "mean": 0.0014339711997308768, "std": 0.9982577803146236, "min": -3.859375, "max": 3.96875}}, {"kind": "scalar", "value": 2048}, {"kind": "tensor", "dtype": "bfloat16", "shape": [2048], "stride": [1], "offset": 0, "storage": 2048, "data": {"kind": "float", "mean": 1.0, "std": 0.0, "min": 1.0, "max": 1.0}}, {"kind": "scalar", "value": 1}, {"kind": "tensor", "dtype": "float32", "shape": [4096], "stride": [1], "offset": 0, "storage": 4096, "data": {"kind": "float", "mean": 0.9999891724000918, "std": 0.015522989542519251, "min": 0.9495043158531189, "max": 1.0596356391906738}}, {"kind": "scalar", "value": 1}, {"kind": "tensor", "dtype": "float32", "shape": [132, 2048], "stride": [2048, 1], "offset": 0, "storage": 270336, "data": null}, {"kind": "scalar", "value": 2048}, {"kind": "scalar", "value": 4096}, {"kind": "scalar", "value": 2048}, {"kind": "scalar", "value": 0.0}, {"kind": "scalar", "value": 32}]
]""")


def launch(dY_ptr, dY_row_stride, dX_ptr, dX_row_stride, X_ptr, X_row_stride, W_ptr, W_row_stride, RSTD_ptr, RSTD_row_stride, dW_ptr, dW_row_stride, n_rows, n_cols, offset, rows_per_program):
    grid = (dW_ptr.shape[0],)
    _rms_norm_backward_kernel[grid](dY_ptr, dY_row_stride, dX_ptr, dX_row_stride, X_ptr, X_row_stride, X_dtype=tl.bfloat16, W_ptr=W_ptr, W_row_stride=W_row_stride, RSTD_ptr=RSTD_ptr, RSTD_row_stride=RSTD_row_stride, dW_ptr=dW_ptr, dW_row_stride=dW_row_stride, n_rows=n_rows, n_cols=n_cols, offset=offset, rows_per_program=rows_per_program, casting_mode=0, elementwise_affine=True, BLOCK_SIZE=2048, COMPUTE_DW=True, num_warps=8, num_stages=3)
    return dX_ptr, dW_ptr  # the tensors the kernel writes


def _draw(spec, device):
    """A tensor as the program passed it: dtype, shape, strides and storage offset, its storage
    filled with data in the recorded range."""
    dtype = getattr(torch, spec["dtype"])
    n = max(spec["storage"], 1)
    data = spec["data"] or {"kind": "bool" if dtype == torch.bool else
                                    "float" if dtype.is_floating_point else "int", "mean": 0.0, "std": 1.0,
                            "min": 0, "max": 1, "p": 0.5}
    if data["kind"] == "bool":
        flat = torch.rand(n, device=device) < data["p"]
    elif data["kind"] == "int" and "values" in data:  # exactly the values the program passed
        values = torch.tensor(data["values"], dtype=torch.int64, device=device)
        flat = values[torch.randint(0, len(data["values"]), (n,), device=device)].to(dtype)
    elif data["kind"] == "int":
        flat = torch.randint(data["min"], data["max"] + 1, (n,), device=device, dtype=torch.int64)
        if data.get("sentinels"):  # e.g. -100 for an ignored label, at its recorded share
            sentinels = torch.tensor(data["sentinels"], dtype=torch.int64, device=device)
            pick = sentinels[torch.randint(0, len(data["sentinels"]), (n,), device=device)]
            flat = torch.where(torch.rand(n, device=device) < data["sentinel_share"], pick, flat)
        flat = flat.to(dtype)
    elif data.get("min") is not None and data["min"] == data["max"] != 0:  # constant: the ones of a .sum()'s
        flat = torch.full((n,), data["min"], device=device, dtype=dtype)  # backward (zeros would hide bugs)
    else:
        flat = torch.randn(n, device=device, dtype=torch.float32) * (data["std"] or 1.0) + data["mean"]
        if "min" in data and data["min"] < data["max"]:  # all zeros (a fresh bias) is drawn N(0, 1): zeros
            flat = flat.clamp(data["min"], data["max"])  # hide bugs, and any bias is as valid
        flat = flat.to(dtype)
    return flat.as_strided(spec["shape"], spec["stride"], spec["offset"])


def _inputs(config, device):
    return tuple(_draw(spec, device) if spec["kind"] == "tensor" else spec["value"] for spec in config)


def make_inputs(device):
    return _inputs(CONFIGS[0], device)
