"""Nearest-neighbour 2x upsampling of an (8, 64, 256, 256) fp16 NCHW tensor to 512 x 512 (336 MB moved), FlagGems `upsample_nearest2d`, autotuned.

Provenance:
FlagOpen/FlagGems@532ff438c70343d7aec9becdabb76a71225a0553:src/flag_gems/ops/upsample_nearest2d.py,
Apache-2.0 (SPDX: Apache-2.0), "Copyright © 2024 BAAI. All rights reserved." (the repository's
LICENSE; the upstream source files carry no license header). Copied verbatim:
`upsample_nearest2d_kernel` (`@triton.autotune` over BLOCK_SIZE and warps, then `@triton.heuristics`
for SAME_H/SAME_W/USE_INT32_IDX; a 2D grid of output-pixel blocks x cdiv(N*C, 4) channel programs,
each looping over every (N*C)/grid-y-th plane) and the wrapper `upsample_nearest2d`. Changed:
nothing in the kernel and the wrapper (this file uses no `@libentry()`). Imports of FlagGems helpers
are replaced by copies: the NVIDIA upsample_nearest2d heuristics (verbatim from
src/flag_gems/runtime/backend/_nvidia/heuristics_config_utils.py, `HEURISTICS_CONFIGS` cut to its
"upsample_nearest2d" entry), the autotune configs FlagGems builds on NVIDIA for "upsample_nearest2d"
(src/flag_gems/runtime/backend/_nvidia/tune_configs.yaml: block_n [1024, 2048] x warps [4, 8], as
ConfigLoader.to_gen_config lists them depth-first: (2048, 8), (2048, 4), (1024, 8), (1024, 4),
num_stages 2), a `runtime` class standing in for
`flag_gems.runtime.get_heuristic_config`/`get_tuned_config`, `torch_device_fn = torch.cuda` and
`device = "cuda"` (flag_gems.runtime.device.name on NVIDIA).
"""
import logging
from typing import Optional, Tuple

import torch
import triton
import triton.language as tl

# ---- copied from FlagOpen/FlagGems@532ff438c70343d7aec9becdabb76a71225a0553 (Apache-2.0, Copyright © 2024 BAAI.
# All rights reserved.; the upstream files carry no license header)


# src/flag_gems/runtime/backend/_nvidia/heuristics_config_utils.py (the heuristics used below)


def upsample_nearest2d_SAME_H(args):
    return args["OH"] == args["IH"]


def upsample_nearest2d_SAME_W(args):
    return args["OW"] == args["IW"]


def upsample_nearest2d_USE_INT32_IDX(args):
    return args["N"] * args["C"] * args["OH"] * args["OW"] <= (2**31 - 1)  # INT32 MAX


HEURISTICS_CONFIGS = {
    "upsample_nearest2d": {
        "SAME_H": upsample_nearest2d_SAME_H,
        "SAME_W": upsample_nearest2d_SAME_W,
        "USE_INT32_IDX": upsample_nearest2d_USE_INT32_IDX,
    },
}


# src/flag_gems/runtime/backend/_nvidia/tune_configs.yaml, "upsample_nearest2d" (gen: BLOCK_SIZE over
# block_n [1024, 2048], num_warps over [4, 8]) as flag_gems/runtime/configloader.py's to_gen_config
# expands it (defaults num_stages 2, num_ctas 1).
TUNED_CONFIGS = {
    "upsample_nearest2d": [triton.Config({"BLOCK_SIZE": b}, num_warps=w, num_stages=2, num_ctas=1)
                           for b, w in ((2048, 8), (2048, 4), (1024, 8), (1024, 4))],
}


class runtime:
    """flag_gems.runtime on NVIDIA, reduced to the two config look-ups the decorators below make."""

    @staticmethod
    def get_heuristic_config(op_name):
        return HEURISTICS_CONFIGS[op_name]

    @staticmethod
    def get_tuned_config(op_name):
        return TUNED_CONFIGS[op_name]


# flag_gems.runtime.torch_device_fn: on NVIDIA, backend.gen_torch_device_object() evaluates `torch.cuda`
torch_device_fn = torch.cuda


# src/flag_gems/ops/upsample_nearest2d.py


device = "cuda"  # upstream: `device = device.name`, flag_gems.runtime.device.name on NVIDIA
logger = logging.getLogger(__name__)


@triton.autotune(
    configs=runtime.get_tuned_config("upsample_nearest2d"), key=["N", "C", "OH", "OW"]
)
@triton.heuristics(runtime.get_heuristic_config("upsample_nearest2d"))
@triton.jit
def upsample_nearest2d_kernel(
    ptr_o,
    ptr_i,
    N,
    C,
    OH,
    OW,
    IH,
    IW,
    reciprocal_scale_h,
    reciprocal_scale_w,
    BLOCK_SIZE: tl.constexpr,
    SAME_H: tl.constexpr,
    SAME_W: tl.constexpr,
    USE_INT32_IDX: tl.constexpr,
):
    if USE_INT32_IDX:
        pid = tl.program_id(axis=0)
    else:
        pid = tl.program_id(axis=0).to(tl.int64)
    nc_stride = tl.num_programs(axis=1)
    NC = N * C
    nc_iter = tl.program_id(axis=1)
    pid = tl.program_id(axis=0)
    idx = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    ow = idx % OW
    oh = idx // OW % OH
    if SAME_H:
        ih = oh
    else:
        # tl.floor() cannot be found in 2.3.1, using int trunc
        ih = tl.minimum((oh * reciprocal_scale_h).to(tl.int32), IH - 1)
    if SAME_W:
        iw = ow
    else:
        iw = tl.minimum((ow * reciprocal_scale_w).to(tl.int32), IW - 1)

    offset_o = (nc_iter * OH + oh) * OW + ow
    offset_i = (nc_iter * IH + ih) * IW + iw
    src_index_stride = nc_stride * IH * IW
    dst_index_stride = nc_stride * OH * OW
    while nc_iter < NC:
        data = tl.load(ptr_i + offset_i)
        tl.store(ptr_o + offset_o, data)
        ptr_i += src_index_stride
        ptr_o += dst_index_stride
        nc_iter += nc_stride


def upsample_nearest2d(
    input: torch.Tensor,
    output_size: Tuple[int],
    scales_h: Optional[float] = None,
    scales_w: Optional[float] = None,
) -> torch.Tensor:
    logger.debug("GEMS UPSAMPLE NEAREST2D")
    assert input.device.type == device
    assert input.ndim == 4, "The ndim of input must be 4"
    assert len(output_size) == 2, "The len of output_size must be 2"
    OH, OW = output_size
    N, C, IH, IW = input.shape
    if scales_h is not None:
        reciprocal_scale_h = 1 / scales_h
    else:
        reciprocal_scale_h = IH / OH
    if scales_w is not None:
        reciprocal_scale_w = 1 / scales_w
    else:
        reciprocal_scale_w = IW / OW
    # allocate output
    output = torch.empty((N, C, OH, OW), device=input.device, dtype=input.dtype)
    total_threads = OH * OW
    grid = lambda META: (
        triton.cdiv(total_threads, META["BLOCK_SIZE"]),
        triton.cdiv(N * C, 4),
    )

    with torch_device_fn.device(input.device):
        upsample_nearest2d_kernel[grid](
            output,
            input,
            N,
            C,
            OH,
            OW,
            IH,
            IW,
            reciprocal_scale_h,
            reciprocal_scale_w,
        )
    return output


# ---- end of the copied code; what follows is this project's task interface


SCALE = 2


def launch(x):
    return upsample_nearest2d(x, (x.shape[2] * SCALE, x.shape[3] * SCALE))


def reference(x):
    return torch.nn.functional.interpolate(x, scale_factor=SCALE, mode="nearest")


def make_inputs(device):
    return (torch.randn(8, 64, 256, 256, device=device, dtype=torch.float16), )  # a UNet decoder stage


def make_small_inputs(device):
    return (torch.randn(2, 3, 20, 30, device=device, dtype=torch.float16), )  # 2400 output pixels: 2 blocks, the last partial


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            # 7 planes (grid y = 2: each program loops over 3 or 4 of them) of 38 x 74 outputs (2 blocks, the last partial)
            (torch.randn(1, 7, 19, 37, device=device, dtype=torch.float16), ),
            # one 1 x 1 plane: a 2 x 2 output, 4 live lanes of one block
            (torch.randn(1, 1, 1, 1, device=device, dtype=torch.float16), )]


def bytes_moved(x):
    return x.numel() * x.element_size() * (1 + SCALE * SCALE)


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
