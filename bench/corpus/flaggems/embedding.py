"""Embedding lookup of 16384 tokens in a (32000, 4096) bf16 table (268 MB moved), FlagGems `embedding`.

Provenance:
FlagOpen/FlagGems@532ff438c70343d7aec9becdabb76a71225a0553:src/flag_gems/ops/embedding.py,
Apache-2.0 (SPDX: Apache-2.0), "Copyright © 2024 BAAI. All rights reserved." (the repository's
LICENSE; the upstream source files carry no license header). Copied verbatim: `embedding_kernel`
(one program per token: load its row index, copy the whole row as one BLOCK_SIZE =
next_power_of_2(N) tile) and the wrapper `embedding`. Changed: `@libentry()`
(flag_gems.utils.libentry, a launch cache in front of the JIT that skips re-binding arguments) is
dropped from every kernel; the other decorators are as upstream. Imports of FlagGems helpers are
replaced by copies: `torch_device_fn = torch.cuda` (what FlagGems resolves on NVIDIA) and
`tle.program_id` (verbatim from src/flag_gems/utils/triton_lang_extension.py). Left out: the
backward kernels and `embedding_backward`.
"""
import logging
import types

import torch
import triton
import triton.language as tl

# ---- copied from FlagOpen/FlagGems@532ff438c70343d7aec9becdabb76a71225a0553 (Apache-2.0, Copyright © 2024 BAAI.
# All rights reserved.; the upstream files carry no license header)

# flag_gems.runtime.torch_device_fn: on NVIDIA, backend.gen_torch_device_object() evaluates `torch.cuda`
torch_device_fn = torch.cuda


# flag_gems.utils.triton_lang_extension (imported upstream as `tle`): the one function of it these
# kernels call, verbatim from src/flag_gems/utils/triton_lang_extension.py, held in a module object
# so that the kernels' `tle.program_id(...)` reads as upstream.
@triton.jit
def program_id(
    axis: int,
) -> tl.tensor:
    return tl.program_id(axis).to(tl.int64)


tle = types.ModuleType("flag_gems.utils.triton_lang_extension")
tle.program_id = program_id


# src/flag_gems/ops/embedding.py


logger = logging.getLogger(__name__)


@triton.jit
def embedding_kernel(
    out_ptr,  # pointer to the output
    in_ptr,  # pointer to the input
    weight_ptr,  # pointer to the weights
    N: tl.constexpr,  # number of columns in X
    BLOCK_SIZE: tl.constexpr,
):
    pid = tle.program_id(0)
    out_ptr += pid * N
    in_ptr += pid

    mask = tl.arange(0, BLOCK_SIZE) < N
    cols = tl.arange(0, BLOCK_SIZE)

    row_idx = tl.load(in_ptr)
    weight_ptr += row_idx * N
    embedding_weight = tl.load(weight_ptr + cols, mask, other=0.0)
    tl.store(out_ptr + cols, embedding_weight, mask)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    logger.debug("GEMS EMBEDDING FORWARD")
    assert not sparse, "Currently do not support sparse format"

    M = indices.numel()
    N = weight.shape[-1]

    BLOCK_SIZE = triton.next_power_of_2(N)
    # TODO: remove contiguous enforcement
    indices = indices.contiguous()
    weight = weight.contiguous()
    output = torch.empty((*indices.shape, N), device=indices.device, dtype=weight.dtype)

    with torch_device_fn.device(weight.device):
        embedding_kernel[M,](output, indices, weight, N, BLOCK_SIZE)

    return output


# ---- end of the copied code; what follows is this project's task interface


def launch(weight, indices):
    return embedding(weight, indices)


def reference(weight, indices):
    return torch.nn.functional.embedding(indices, weight)


def _inputs(device, V, N, B, S):
    weight = torch.randn(V, N, device=device, dtype=torch.bfloat16)
    indices = torch.randint(0, V, (B, S), device=device, dtype=torch.int64)
    return (weight, indices)


def make_inputs(device):
    return _inputs(device, 32000, 4096, 8, 2048)  # Llama-2-7B's table, 8 sequences of 2048 tokens


def make_small_inputs(device):
    return _inputs(device, 100, 300, 2, 7)  # a 512 tile per row, 212 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            _inputs(device, 61, 131, 3, 37),  # 111 tokens, rows of 131 in a 256 tile (125 columns masked)
            _inputs(device, 1, 1, 1, 1)]  # one token in a one-row table of width 1: BLOCK_SIZE = 1


def bytes_moved(weight, indices):
    N = weight.shape[1]
    return 2 * indices.numel() * N * weight.element_size() + indices.numel() * indices.element_size()


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
