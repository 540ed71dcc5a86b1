"""GEGLU forward, tanh approximation (unsloth `geglu_approx_forward_kernel`): h = gelu_tanh(gate) * up over (2, 4096, 14336) bf16 gate and up projections, Gemma-2-9B's MLP at 2 x 4k tokens.

Provenance: unslothai/unsloth@015bdef0d94a241bcd94eec7a405b1700632180d:unsloth/kernels/geglu.py
(Apache-2.0, "Copyright 2023-present Daniel Han-Chen & the Unsloth team. All rights reserved.", the
file's header, kept). Copied verbatim: the block-size and int32-safety constants, the kernel
`_approx_forward_kernel` and its wrapper `geglu_approx_forward_kernel(gate, up)`, which `launch` calls. Left out: the other GEGLU
kernels of the file and the backward kernels. The import `from .utils import (calculate_settings,
triton_tanh, torch_gpu_device)` is replaced by verbatim copies from unsloth/kernels/utils.py of
the Triton >= 3.0 block that defines `triton_tanh` (libdevice's tanh) and `triton_cast`, and the `if DEVICE_COUNT > 1: ... else: ... nullcontext` block that defines `torch_gpu_device` (`calculate_settings` is imported upstream but not used by this code), preceded by
stand-ins for the unsloth/device_type.py values those read.

The launch: a flat 1-D grid of 1024-element blocks over all 117M elements (114688 programs, the
default 4 warps), int32 offsets (LONG_INDEXING 0).
"""
# --------------------------------------------------------------------------------------------------
# Copied from unslothai/unsloth@015bdef0d94a241bcd94eec7a405b1700632180d:unsloth/kernels/geglu.py
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
# triton_tanh (the Triton >= 3.0 block that defines it and triton_cast), torch_gpu_device
# --------------------------------------------------------------------------------------------------


# Stand-ins, not upstream code: unsloth/device_type.py probes MLX, bitsandbytes and the accelerator
# at import; these are the values it computes on an NVIDIA GPU, for the helpers below.
DEVICE_TYPE = "cuda"
DEVICE_COUNT = torch.cuda.device_count()
from packaging.version import Version  # upstream: from unsloth_zoo.utils import Version


# tl.math.tanh now is libdevice.tanh
import triton
import triton.language as tl

if Version(triton.__version__) >= Version("3.0.0"):
    if DEVICE_TYPE == "xpu":
        triton_tanh = tl.extra.intel.libdevice.tanh
    else:
        from triton.language.extra import libdevice
        triton_tanh = libdevice.tanh
    triton_cast = tl.cast
else:
    triton_tanh = tl.math.tanh

    # No casting in old Triton versions
    @triton.jit
    def triton_cast(x, dtype):
        return x.to(dtype)


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
# unsloth/kernels/geglu.py continues
# --------------------------------------------------------------------------------------------------


# signed int32 max is 2**31-1 so num_elements cannot exceed 2**31
NUM_INT32_ELEMENTS = 2**31
SAFE_INT32_BUFFER_MULTIPLIER = 4
BLOCK_SIZE = 1024
INT32_SAFETY_BUFFER = NUM_INT32_ELEMENTS - BLOCK_SIZE * SAFE_INT32_BUFFER_MULTIPLIER


@triton.jit
def _approx_forward_kernel(
    e, g, h, n_elements, BLOCK_SIZE: tl.constexpr, LONG_INDEXING: tl.constexpr
):
    block_idx = tl.program_id(0)
    if LONG_INDEXING:
        offsets = block_idx.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE).to(tl.int64)
        n_elements = tl.cast(n_elements, tl.int64)
    else:
        offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    # f = 1/2 * e * (1 + tanh( sqrt(2/pi) * (x + 0.044715 * x^3 ) ))
    # f = 1/2 * e * (1 + tanh( sqrt(2/pi) * x * (1 + 0.044715 * x^2 ) ))
    # h = f * up
    s = 0.7978845608028654  # math.sqrt(2 / math.pi)

    e_row = tl.load(e + offsets, mask = mask, other = 0).to(tl.float32)
    g_row = tl.load(g + offsets, mask = mask, other = 0)  # .to(tl.float32)

    f_row = 0.5 * e_row * (triton_tanh(s * e_row * (1.0 + 0.044715 * e_row * e_row)) + 1.0)
    f_row = f_row.to(g_row.dtype)  # Exact copy from HF
    h_row = f_row * g_row

    # Store h
    tl.store(h + offsets, h_row, mask = mask)


def geglu_approx_forward_kernel(gate, up):
    batch, seq_len, hd = gate.shape
    n_elements = gate.numel()
    device = gate.device
    out = torch.empty((batch, seq_len, hd), dtype = gate.dtype, device = device)
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    with torch_gpu_device(device):
        _approx_forward_kernel[grid](
            gate,
            up,
            out,
            n_elements,
            BLOCK_SIZE = BLOCK_SIZE,
            LONG_INDEXING = 0 if n_elements <= INT32_SAFETY_BUFFER else 1,
        )
    return out


# ==================================================================================================
# What this project adds (docs/task-format.md): launch, inputs, reference, sizes.
# ==================================================================================================


def launch(gate, up):
    return geglu_approx_forward_kernel(gate, up)


def reference(gate, up):
    f = torch.nn.functional.gelu(gate.float(), approximate="tanh").to(up.dtype)  # gelu_pytorch_tanh in the model dtype
    return (f.float() * up.float()).to(up.dtype)


def _inputs(device, batch, seq, hd):
    gate = torch.randn(batch, seq, hd, device=device, dtype=torch.bfloat16)
    up = torch.randn(batch, seq, hd, device=device, dtype=torch.bfloat16)
    return (gate, up)


def make_inputs(device):
    return _inputs(device, 2, 4096, 14336)  # gate, up, out: 235 MB each


def make_small_inputs(device):
    return _inputs(device, 1, 3, 1000)  # 3000 elements: two full 1024 blocks and a masked one


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small odd shape, a prime hidden size, a single element
    return [
        make_small_inputs(device),  # (1, 3, 1000): 3000 elements, two full 1024 blocks and one 952 wide
        _inputs(device, 2, 5, 1031),  # (2, 5, 1031): 10310 elements, a batch of 2, 10 full blocks and one 70 wide
        _inputs(device, 1, 1, 1),  # (1, 1, 1): a single token of hidden size 1, one program, 1023 lanes masked
    ]


def bytes_moved(gate, up):
    return 3 * gate.numel() * gate.element_size()


def flops(gate, up):
    return 9 * gate.numel()  # square, polynomial, scale, tanh, add, two multiplies by 0.5 and e, times up


TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}


INTERPRETER_XFAIL = (
    "Triton 3.6's interpreter does not run libdevice functions (triton_tanh is libdevice.tanh; "
    "triton-lang/triton#8825) and computes bf16 arithmetic (f * up) on the uint16 bit patterns "
    "(Triton's debugging guide: the interpreter does not support operations on bfloat16). With "
    "tanh replaced by a tl.math equivalent and bf16 arithmetic patched to run in fp32 and round "
    "back, the entry matches its reference"
)
