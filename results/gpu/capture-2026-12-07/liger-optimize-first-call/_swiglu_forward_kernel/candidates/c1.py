"""`_swiglu_forward_kernel`, captured by `tritondx capture` on the GPU from `examples/capture/liger_train.py`.

Provenance: /tmp/site/liger_kernel/ops/swiglu.py:57 (package liger_kernel 0.8.5). Copied from that file: the kernel and the @triton.jit helpers and
constants it reads; the launch, make_inputs and make_test_inputs below repeat what the program did
(3 launch(es) in 1 configuration(s)). The original kernel is the reference.
"""
import json

import torch
import triton
import triton.language as tl


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_forward_kernel(
    a_ptr, b_ptr, c_ptr, stride, gate_multiplier, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    program_id = tl.program_id(0).to(tl.int64)

    # locate start index
    a_ptr += program_id * stride
    b_ptr += program_id * stride
    c_ptr += program_id * stride

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    # sigmoid requires type float32
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32) * gate_multiplier.to(tl.float32)
    b_row = tl.load(b_ptr + col_offsets, mask=mask, other=0)
    c_row = silu(a_row).cast(b_row.dtype) * b_row
    tl.store(c_ptr + col_offsets, c_row, mask=mask)


# ---- the captured launch (tritondx capture)
# make_inputs draws CONFIGS[0], the most frequent configuration; make_test_inputs the others
CONFIGS = json.loads("""[
[{"kind": "tensor", "dtype": "bfloat16", "shape": [4096, 8192], "stride": [8192, 1], "offset": 0, "storage": 33554432, "data": {"kind": "float", "mean": -0.0036570693791873055, "std": 0.5775621130849048, "min": -2.46875, "max": 2.78125}}, {"kind": "tensor", "dtype": "bfloat16", "shape": [4096, 8192], "stride": [8192, 1], "offset": 0, "storage": 33554432, "data": {"kind": "float", "mean": 0.0010493410495655553, "std": 0.5786924871574814, "min": -2.703125, "max": 2.34375}}, {"kind": "tensor", "dtype": "bfloat16", "shape": [4096, 8192], "stride": [8192, 1], "offset": 0, "storage": 33554432, "data": null}, {"kind": "scalar", "value": 8192}, {"kind": "scalar", "value": 1.0}]
]""")


def launch(a_ptr, b_ptr, c_ptr, stride, gate_multiplier):
    grid = (a_ptr.shape[0],)
    _swiglu_forward_kernel[grid](a_ptr, b_ptr, c_ptr, stride, gate_multiplier, n_cols=8192, BLOCK_SIZE=8192, num_warps=16, num_stages=3)
    return c_ptr,  # the tensors the kernel writes


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
