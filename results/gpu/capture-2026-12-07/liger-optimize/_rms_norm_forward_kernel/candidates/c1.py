"""`_rms_norm_forward_kernel`, captured by `tritondx capture` on the GPU from `examples/capture/liger_train.py`.

Provenance: /tmp/site/liger_kernel/ops/rms_norm.py:67 (package liger_kernel 0.8.5). Copied from that file: the kernel and the @triton.jit helpers and
constants it reads; the launch, make_inputs and make_test_inputs below repeat what the program did
(3 launch(es) in 1 configuration(s)). The original kernel is the reference.
"""
import json

import torch
import triton
import triton.language as tl
from triton.language.extra.libdevice import rsqrt

_CASTING_MODE_LLAMA = tl.constexpr(0)
_CASTING_MODE_GEMMA = tl.constexpr(1)
_CASTING_MODE_NONE = tl.constexpr(-1)


@triton.jit
def _rms_norm_forward_kernel(
    Y_ptr,
    Y_row_stride,
    X_ptr,
    X_row_stride,
    W_ptr,
    W_row_stride,
    RSTD_ptr,
    RSTD_row_stride,
    n_cols,
    eps,
    offset,
    casting_mode: tl.constexpr,  # constexpr so the `if` blocks can be optimized out
    elementwise_affine: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    """
    y_i = (x_i / (RMS)) * (offset + wi), RMS = sqrt(sum(x_i^2) / N)

    Reference:
    1. https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
    2. https://github.com/unslothai/unsloth/blob/fd753fed99ed5f10ef8a9b7139588d9de9ddecfb/unsloth/kernels/rms_layernorm.py#L22
    3. https://arxiv.org/pdf/1910.07467
    """

    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    y_base = Y_ptr + row_idx * Y_row_stride
    x_base = X_ptr + row_idx * X_row_stride
    rstd_base = RSTD_ptr + row_idx * RSTD_row_stride

    X_row = tl.load(x_base + col_offsets, mask=mask, other=0)
    X_row_dtype = X_row.dtype
    if elementwise_affine:
        W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)

    # On Llama, only rstd is computed on fp32
    if casting_mode == _CASTING_MODE_LLAMA:
        X_row = X_row.to(tl.float32)

    # Gemma computes everything on fp32, and then casts back the output to the original dtype
    if casting_mode == _CASTING_MODE_GEMMA:
        if elementwise_affine:
            W_row = W_row.to(tl.float32)
        X_row = X_row.to(tl.float32)

    if casting_mode == _CASTING_MODE_NONE:
        eps = eps.to(X_row_dtype)
        offset = offset.to(X_row_dtype)
    else:
        # Scalar kernel params are specialized to fp32 by eager Triton but to
        # fp64 by Inductor when this kernel is launched from inside
        # torch.compile. An fp64 scalar silently promotes mean_square, rsqrt
        # and the weight multiply to float64, roughly halving throughput.
        # Pinning to fp32 is a no-op in eager and keeps both paths identical.
        eps = eps.to(tl.float32)
        offset = offset.to(tl.float32)

    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = rsqrt(mean_square + eps)

    # We can save time by caching rms with minimal memory overhead
    # because rms is much smaller compared to X_row, as rms is for each row.
    # However, on the computation side, it can save 4 operations (*, sum, /, sqrt).
    tl.store(rstd_base, rstd)

    X_row = X_row * rstd

    # On Llama, the multiplication with the weight is done on the original dtype
    if casting_mode == _CASTING_MODE_LLAMA:
        X_row = X_row.to(X_row_dtype)

    if elementwise_affine:
        Y_row = X_row * (offset + W_row)
    else:
        Y_row = X_row

    if casting_mode == _CASTING_MODE_GEMMA:
        Y_row = Y_row.to(X_row_dtype)

    tl.store(y_base + col_offsets, Y_row, mask=mask)


# ---- the captured launch (tritondx capture)
# make_inputs draws CONFIGS[0], the most frequent configuration; make_test_inputs the others
CONFIGS = json.loads("""[
[{"kind": "tensor", "dtype": "bfloat16", "shape": [4096, 2048], "stride": [2048, 1], "offset": 0, "storage": 8388608, "data": null}, {"kind": "scalar", "value": 2048}, {"kind": "tensor", "dtype": "bfloat16", "shape": [4096, 2048], "stride": [2048, 1], "offset": 0, "storage": 8388608, "data": {"kind": "float", "mean": 0.0014339711997308768, "std": 0.9982577803146236, "min": -3.859375, "max": 3.96875}}, {"kind": "scalar", "value": 2048}, {"kind": "tensor", "dtype": "bfloat16", "shape": [2048], "stride": [1], "offset": 0, "storage": 2048, "data": {"kind": "float", "mean": 1.0, "std": 0.0, "min": 1.0, "max": 1.0}}, {"kind": "scalar", "value": 1}, {"kind": "tensor", "dtype": "float32", "shape": [4096], "stride": [1], "offset": 0, "storage": 4096, "data": null}, {"kind": "scalar", "value": 1}, {"kind": "scalar", "value": 2048}, {"kind": "scalar", "value": 1e-06}, {"kind": "scalar", "value": 0.0}]
]""")


def launch(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, W_row_stride, RSTD_ptr, RSTD_row_stride, n_cols, eps, offset):
    grid = (Y_ptr.shape[0],)
    _rms_norm_forward_kernel[grid](Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, W_row_stride, RSTD_ptr, RSTD_row_stride, n_cols, eps, offset, casting_mode=0, elementwise_affine=True, BLOCK_SIZE=2048, num_warps=8, num_stages=3)
    return Y_ptr, RSTD_ptr  # the tensors the kernel writes


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
