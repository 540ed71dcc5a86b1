"""LayerNorm forward (unsloth `Fast_Layernorm`, computed in fp32) over a (4, 4096, 4096) bf16 activation with weight and bias: 4 x 4k tokens at a 4096 hidden size.

Provenance: unslothai/unsloth@015bdef0d94a241bcd94eec7a405b1700632180d:unsloth/kernels/layernorm.py
(Apache-2.0, "Copyright 2023-present Daniel Han-Chen & the Unsloth team. All rights reserved." and
"Copyright 2024-present Andrej Karpathy & the llm.c team. All rights reserved.", the file's header,
kept). Copied verbatim: the kernel `layernorm_forward` and the autograd Function `Fast_Layernorm` up
to the end of its `forward` (block size and warps from `calculate_settings`, one program per row);
`launch` calls `Fast_Layernorm.apply(X, W, b, eps)` as `fast_layernorm` does. Left out: the backward
kernel, the Function's `backward`, `fast_layernorm` and the test code, and the import of
`unsloth_zoo.patching_utils.patch_layernorm` (unused by this code). The import `from .utils import
calculate_settings, torch_gpu_device` is replaced by verbatim copies from unsloth/kernels/utils.py
(`MAX_FUSED_SIZE`, `next_power_of_2`, `calculate_settings`, and the `if DEVICE_COUNT > 1: ...
else: ... nullcontext` block that defines `torch_gpu_device`), preceded by stand-ins for the
unsloth/device_type.py values that block reads.

The launch: n_cols and eps are constexprs; 4096 columns give BLOCK_SIZE 4096 and 8 warps, 16384
programs. It returns Y (the per-row mean and inverse std go to the autograd context).
"""
# --------------------------------------------------------------------------------------------------
# Copied from unslothai/unsloth@015bdef0d94a241bcd94eec7a405b1700632180d:unsloth/kernels/layernorm.py
# Apache-2.0; the license text is in LICENSE beside this file. The file's own header follows.
# --------------------------------------------------------------------------------------------------


# Copyright 2023-present Daniel Han-Chen & the Unsloth team. All rights reserved.
# Copyright 2024-present Andrej Karpathy & the llm.c team. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.


import triton
import triton.language as tl
import torch


# --------------------------------------------------------------------------------------------------
# Helpers the code below imports from unsloth/kernels/utils.py, copied verbatim at the same commit:
# MAX_FUSED_SIZE, next_power_of_2, calculate_settings, torch_gpu_device
# --------------------------------------------------------------------------------------------------


# Stand-ins, not upstream code: unsloth/device_type.py probes MLX, bitsandbytes and the accelerator
# at import; these are the values it computes on an NVIDIA GPU, for the helpers below.
DEVICE_TYPE = "cuda"
DEVICE_COUNT = torch.cuda.device_count()


MAX_FUSED_SIZE: int = 65536
next_power_of_2 = triton.next_power_of_2


def calculate_settings(
    n: int,
) -> (
    int,
    int,
):
    BLOCK_SIZE: int = next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds "
            f"the maximum CUDA blocksize = {MAX_FUSED_SIZE}."
        )
    num_warps: int = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


if DEVICE_COUNT > 1:
    if DEVICE_TYPE in ("cuda", "hip"):
        torch_gpu_device = torch.cuda.device
    elif DEVICE_TYPE == "xpu":
        torch_gpu_device = torch.xpu.device
else:
    from contextlib import nullcontext
    def torch_gpu_device(device):
        return nullcontext()


# --------------------------------------------------------------------------------------------------
# unsloth/kernels/layernorm.py continues
# --------------------------------------------------------------------------------------------------


@triton.jit
def layernorm_forward(
    Y,
    Y_row_stride,
    X,
    X_row_stride,
    W,
    b,
    r,
    mu,
    n_cols: tl.constexpr,
    eps: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    r += row_idx
    mu += row_idx

    # According to https://pytorch.org/torchtune/stable/_modules/torchtune/modules/layer_norm.html#Fp32LayerNorm, all modules
    # are in float32!
    X_row = tl.load(X + col_offsets, mask = mask, other = 0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask = mask, other = 0).to(tl.float32)
    b_row = tl.load(b + col_offsets, mask = mask, other = 0).to(tl.float32)

    mean_X = tl.sum(X_row, axis = 0) / n_cols
    # (X[0] - mean) == -mean so we need to mask it out
    XX = tl.where(mask, X_row - mean_X, 0)
    row_var = tl.sum(XX * XX, axis = 0) / n_cols
    # Explicit float32 scalar to ensure correct type promotion on HIP/ROCm
    eps_f32 = tl.full((), eps, tl.float32)
    inv_var = tl.math.rsqrt(row_var + eps_f32)
    tl.store(r, inv_var)
    tl.store(mu, mean_X)
    output = (XX * inv_var) * W_row + b_row
    tl.store(Y + col_offsets, output, mask = mask)


class Fast_Layernorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, W, b, eps):
        shape = X.shape
        dim = shape[-1]
        X = X.view(-1, dim)
        n_rows, n_cols = X.shape
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        device = X.device
        Y = torch.empty((n_rows, n_cols), dtype = X.dtype, device = device)
        r = torch.empty(n_rows, dtype = torch.float32, device = device)
        mu = torch.empty(n_rows, dtype = torch.float32, device = device)

        with torch_gpu_device(device):
            layernorm_forward[(n_rows,)](
                Y,
                Y.stride(0),
                X,
                X.stride(0),
                W,
                b,
                r,
                mu,
                n_cols,
                eps,
                BLOCK_SIZE = BLOCK_SIZE,
                num_warps = num_warps,
            )
        ctx.eps = eps
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        ctx.save_for_backward(X, W, b, r, mu)
        return Y.view(*shape)


# ==================================================================================================
# What this project adds (docs/task-format.md): launch, inputs, reference, sizes.
# ==================================================================================================


EPS = 1e-5


def launch(X, W, b):
    return Fast_Layernorm.apply(X, W, b, EPS)


def reference(X, W, b):
    return torch.nn.functional.layer_norm(X.float(), (X.shape[-1],), W.float(), b.float(), EPS).to(X.dtype)


def _inputs(device, batch, seq, hidden):
    X = torch.randn(batch, seq, hidden, device=device, dtype=torch.bfloat16)
    W = (1.0 + 0.1 * torch.randn(hidden, device=device)).to(torch.bfloat16)
    b = (0.1 * torch.randn(hidden, device=device)).to(torch.bfloat16)
    return (X, W, b)


def make_inputs(device):
    return _inputs(device, 4, 4096, 4096)  # X and Y: 134 MB each


def make_small_inputs(device):
    return _inputs(device, 2, 3, 1000)  # a 1024-wide block, the last 24 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small odd shape, a prime hidden size, a single element
    return [
        make_small_inputs(device),  # (2, 3, 1000): 6 rows, a 1024-wide block (4 warps), the last 24 columns masked
        _inputs(device, 3, 5, 1031),  # (3, 5, 1031): 15 rows, a 2048-wide block (8 warps), 1017 columns masked
        _inputs(device, 1, 1, 1),  # (1, 1, 1): a single token of hidden size 1, BLOCK_SIZE 1, one program
    ]


def bytes_moved(X, W, b):
    rows = X.numel() // X.shape[-1]
    return 2 * X.numel() * X.element_size() + (W.numel() + b.numel()) * W.element_size() + 2 * rows * 4


def flops(X, W, b):
    return 7 * X.numel()  # sum, center, square, sum, scale, weight, bias


TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}
