"""SwiGLU forward (unsloth `swiglu_fg_kernel`, the fast-LoRA MLP's h = silu(e) * g) over (2, 4096, 14336) bf16 gate and up projections: Llama-3-8B's MLP at 2 x 4k tokens.

Provenance: unslothai/unsloth@015bdef0d94a241bcd94eec7a405b1700632180d:unsloth/kernels/swiglu.py
(Apache-2.0, "Copyright 2023-present Daniel Han-Chen & the Unsloth team. All rights reserved.", the
file's header, kept). Copied verbatim: the block-size and int32-safety constants, the kernel
`_fg_kernel` and its wrapper `swiglu_fg_kernel(e, g)`, which `launch` calls. Left out: the backward
kernel `_DWf_DW_dfg_kernel` and its wrapper. The import `from .utils import calculate_settings,
torch_gpu_device` is replaced by a verbatim copy of the `if DEVICE_COUNT > 1: ... else: ...
nullcontext` block of unsloth/kernels/utils.py that defines `torch_gpu_device` (`calculate_settings`
is imported upstream but not used by this code), preceded by stand-ins for the
unsloth/device_type.py values that block reads (DEVICE_TYPE "cuda", DEVICE_COUNT =
torch.cuda.device_count()).

The launch: a flat 1-D grid of 1024-element blocks over all 117M elements (114688 programs, the
default 4 warps), int32 offsets (LONG_INDEXING 0).
"""
# --------------------------------------------------------------------------------------------------
# Copied from unslothai/unsloth@015bdef0d94a241bcd94eec7a405b1700632180d:unsloth/kernels/swiglu.py
# Apache-2.0; the license text is in LICENSE beside this file. The file's own header follows.
# --------------------------------------------------------------------------------------------------


# Copyright 2023-present Daniel Han-Chen & the Unsloth team. All rights reserved.
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
# torch_gpu_device
# --------------------------------------------------------------------------------------------------


# Stand-ins, not upstream code: unsloth/device_type.py probes MLX, bitsandbytes and the accelerator
# at import; these are the values it computes on an NVIDIA GPU, for the helpers below.
DEVICE_TYPE = "cuda"
DEVICE_COUNT = torch.cuda.device_count()


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
# unsloth/kernels/swiglu.py continues
# --------------------------------------------------------------------------------------------------


# signed int32 max is 2**31-1 so num_elements cannot exceed 2**31
NUM_INT32_ELEMENTS = 2**31
SAFE_INT32_BUFFER_MULTIPLIER = 4
BLOCK_SIZE = 1024
INT32_SAFETY_BUFFER = NUM_INT32_ELEMENTS - BLOCK_SIZE * SAFE_INT32_BUFFER_MULTIPLIER


@triton.jit
def _fg_kernel(e, g, h, n_elements, BLOCK_SIZE: tl.constexpr, LONG_INDEXING: tl.constexpr):
    block_idx = tl.program_id(0)
    if LONG_INDEXING:
        offsets = block_idx.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE).to(tl.int64)
        n_elements = tl.cast(n_elements, tl.int64)
    else:
        offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    e_row = tl.load(e + offsets, mask = mask, other = 0).to(tl.float32)
    g_row = tl.load(g + offsets, mask = mask, other = 0)  # .to(tl.float32)

    # f = e * sigmoid(e)
    f_row = e_row * tl.sigmoid(e_row)  # e_row / (1 + tl.exp(-e_row))
    f_row = f_row.to(g_row.dtype)  # Exact copy from HF
    # h = f * g
    h_row = f_row * g_row

    # Store h
    tl.store(h + offsets, h_row, mask = mask)


def swiglu_fg_kernel(e, g):
    batch, seq_len, hd = e.shape
    n_elements = e.numel()
    h = torch.empty((batch, seq_len, hd), dtype = e.dtype, device = e.device)
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    with torch_gpu_device(e.device):
        _fg_kernel[grid](
            e,
            g,
            h,
            n_elements,
            BLOCK_SIZE = BLOCK_SIZE,
            LONG_INDEXING = 0 if n_elements <= INT32_SAFETY_BUFFER else 1,
        )
    return h


# ==================================================================================================
# What this project adds (docs/task-format.md): launch, inputs, reference, sizes.
# ==================================================================================================


def launch(e, g):
    return swiglu_fg_kernel(e, g)


def reference(e, g):
    f = torch.nn.functional.silu(e.float()).to(g.dtype)  # as transformers' LlamaMLP: act_fn(gate) in the model dtype
    return (f.float() * g.float()).to(g.dtype)


def _inputs(device, batch, seq, hd):
    e = torch.randn(batch, seq, hd, device=device, dtype=torch.bfloat16)
    g = torch.randn(batch, seq, hd, device=device, dtype=torch.bfloat16)
    return (e, g)


def make_inputs(device):
    return _inputs(device, 2, 4096, 14336)  # e, g, h: 235 MB each


def make_small_inputs(device):
    return _inputs(device, 1, 3, 1000)  # 3000 elements: two full 1024 blocks and a masked one


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small odd shape, a prime hidden size, a single element
    return [
        make_small_inputs(device),  # (1, 3, 1000): 3000 elements, two full 1024 blocks and one 952 wide
        _inputs(device, 2, 5, 1031),  # (2, 5, 1031): 10310 elements, a batch of 2, 10 full blocks and one 70 wide
        _inputs(device, 1, 1, 1),  # (1, 1, 1): a single token of hidden size 1, one program, 1023 lanes masked
    ]


def bytes_moved(e, g):
    return 3 * e.numel() * e.element_size()


def flops(e, g):
    return 5 * e.numel()  # sigmoid (exp, add, divide), two multiplies


TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}

