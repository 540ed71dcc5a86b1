"""SiLU-and-multiply of the fused gate/up projection (LightLLM `silu_and_mul_fwd`, the Llama MLP activation): input (8192, 2 x 11008) fp16 -> output (8192, 11008), Llama-7B's intermediate size.

Provenance: ModelTC/lightllm@fc72ffab9a3455cfb571f22d45ab777cc29de0de:lightllm/models/llama/triton_kernel/silu_and_mul.py
(Apache-2.0; the file carries no copyright line, and the repository's LICENSE is the Apache License
2.0 text with its notice left unfilled). Copied verbatim: the kernel `_silu_and_mul_kernel` (a
128 x 128 tile per program; the gate is the first half of each row, the up projection the second;
silu computed in fp32, the product in the input dtype) and the wrapper `silu_and_mul_fwd`, which
writes into an output the caller allocates (`launch` allocates it, as LightLLM's Llama layer does).
Left out: the file's `torch_silu_and_mul` and `test_silu_and_mul`. Nothing in the kernel or the
wrapper changed. fp16 is LightLLM's default data type (and Triton 3.6's interpreter computes bf16
elementwise arithmetic on the raw bit patterns, so a bf16 version could not be checked on the CPU).

The launch: grid (cdiv(8192, 128), cdiv(11008, 128)) = (64, 86), default num_warps (4).
"""
import torch

import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# lightllm/models/llama/triton_kernel/silu_and_mul.py, verbatim
# --------------------------------------------------------------------------------------------------
@triton.jit
def _silu_and_mul_kernel(
    input_ptr,
    output_ptr,
    stride_input_m,
    stride_input_n,
    stride_output_m,
    stride_output_n,
    size_m,
    size_n,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    stride_input_m = tl.cast(stride_input_m, dtype=tl.int64)
    stride_output_m = tl.cast(stride_output_m, dtype=tl.int64)

    tid = tl.program_id(0)
    input_m_offsets = tid * BLOCK_M + tl.arange(0, BLOCK_M)
    output_m_offsets = tid * BLOCK_M + tl.arange(0, BLOCK_M)

    pid = tl.program_id(1)
    input_n_offsets = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    output_n_offsets = pid * BLOCK_N + tl.arange(0, BLOCK_N)

    up_offsets = input_m_offsets[:, None] * stride_input_m + (input_n_offsets[None, :] + size_n) * stride_input_n
    gate_offsets = input_m_offsets[:, None] * stride_input_m + input_n_offsets[None, :] * stride_input_n
    res_offsets = output_m_offsets[:, None] * stride_output_m + output_n_offsets[None, :] * stride_output_n

    up = tl.load(
        input_ptr + up_offsets,
        mask=(input_n_offsets < size_n)[None, :] * (input_m_offsets < size_m)[:, None],
        other=0.0,
    )
    gate = tl.load(
        input_ptr + gate_offsets,
        mask=(input_n_offsets < size_n)[None, :] * (input_m_offsets < size_m)[:, None],
        other=0.0,
    ).to(tl.float32)

    gate = gate / (1 + tl.exp(-gate))
    gate = gate.to(input_ptr.dtype.element_ty)

    tl.store(
        output_ptr + res_offsets,
        up * gate,
        mask=(output_n_offsets < size_n)[None, :] * (output_m_offsets < size_m)[:, None],
    )


def silu_and_mul_fwd(input: torch.Tensor, output):
    stride_input_m = input.stride(0)
    stride_input_n = input.stride(1)
    stride_output_m = output.stride(0)
    stride_output_n = output.stride(1)
    size_m = input.shape[0]
    size_n = input.shape[-1] // 2
    BLOCK_M = 64
    BLOCK_N = 128
    grid = (
        triton.cdiv(size_m, BLOCK_M),
        triton.cdiv(size_n, BLOCK_N),
    )
    _silu_and_mul_kernel[grid](
        input,
        output,
        stride_input_m,
        stride_input_n,
        stride_output_m,
        stride_output_n,
        size_m,
        size_n,
        BLOCK_M,
        BLOCK_N,
    )
    return


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================


def launch(x):
    out = torch.empty((x.shape[0], x.shape[-1] // 2), dtype=x.dtype, device=x.device)
    silu_and_mul_fwd(x, out)
    return out


def reference(x):
    n = x.shape[-1] // 2
    gate = torch.nn.functional.silu(x[:, :n].float()).to(x.dtype)
    return (gate.float() * x[:, n:].float()).to(x.dtype)


def _inputs(device, tokens, intermediate):
    return torch.randn(tokens, 2 * intermediate, device=device, dtype=torch.float16),


def make_inputs(device):
    return _inputs(device, 8192, 11008)  # x: 361 MB in, 180 MB out


def make_small_inputs(device):
    return _inputs(device, 150, 200)  # partial 128 x 128 tiles in both dimensions


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            _inputs(device, 37, 131),  # one partial row tile (37 of 128), two column tiles, the second 3 wide
            _inputs(device, 1, 1)]  # one token of one (gate, up) pair: one live lane of a 128 x 128 tile


def bytes_moved(x):
    return x.numel() * x.element_size() * 3 // 2


def flops(x):
    return 5 * (x.numel() // 2)  # negate, exp, add, divide, multiply per output element


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
