"""KL-divergence forward (Liger-Kernel `LigerKLDivLossFunction`, batchmean, probabilities as target) over (1024, 128256) fp32 rows: distillation on Llama-3's vocabulary, 1k tokens.

Provenance: linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/kl_div.py
(BSD-2-Clause, Copyright 2024 LinkedIn Corporation). Copied verbatim: `get_num_warps`,
`MAX_FUSED_SIZE`, the reduction-mode constants, the kernel `_kldiv_kernel_forward` (one program per
row, a loop over BLOCK_SIZE chunks summing y_true * (log(max(y_true, eps)) - y)) and the wrapper
`kldiv_forward_triton`. Left out: the backward kernel, `kldiv_backward_triton` and the autograd
Function `LigerKLDivLossFunction`, whose `forward` calls `kldiv_forward_triton(y_pred, y_true,
log_target, reduction, eps)` as `launch` does here (its defaults: reduction "batchmean", log_target
False, eps 1e-10). The package imports are replaced by verbatim copies of the helpers they name
(`is_hip` from src/liger_kernel/ops/utils.py and `infer_device` with the `is_npu_available` it calls
from src/liger_kernel/utils.py, same commit).

The launch: BLOCK_SIZE = min(16384, next_power_of_2(128256)) = 16384 and 16 warps, 1024 programs of
8 chunks each; the per-row sums are reduced with `output_tensor.sum() / BT` on the host side.
"""
# --------------------------------------------------------------------------------------------------
# Copied from linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/kl_div.py
# BSD-2-Clause, Copyright 2024 LinkedIn Corporation; the license text is in LICENSE beside this file.
# --------------------------------------------------------------------------------------------------


from typing import Literal

import torch
import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# Helpers the code below imports from the liger_kernel package, copied verbatim at the same commit
# from src/liger_kernel/ops/utils.py: is_hip
# from src/liger_kernel/utils.py: infer_device, is_npu_available
# --------------------------------------------------------------------------------------------------


def is_hip() -> bool:
    return torch.version.hip is not None


def infer_device():
    """
    Get current device name based on available devices
    """
    if torch.cuda.is_available():  # Works for both Nvidia and AMD
        return "cuda"
    # Use Ascend NPU if available (torch.npu)
    elif is_npu_available():
        return "npu"
    # XPU (Intel) if available
    elif torch.xpu.is_available():
        return "xpu"
    else:
        return "cpu"


def is_npu_available() -> bool:
    """Detect Ascend NPU availability."""
    try:
        from transformers.utils import is_torch_npu_available

        return is_torch_npu_available()
    except Exception:
        return False


# --------------------------------------------------------------------------------------------------
# src/liger_kernel/ops/kl_div.py continues
# --------------------------------------------------------------------------------------------------


def get_num_warps(BLOCK_SIZE):
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32 if not is_hip() else 16
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8

    return num_warps


if infer_device() == "xpu":
    MAX_FUSED_SIZE = 8192
elif infer_device() == "npu":
    MAX_FUSED_SIZE = 8192
else:
    MAX_FUSED_SIZE = 65536 // 4  # 65536 // 4 or 8 works the best

REDUCTION_LITERAL = Literal["none", "sum", "mean", "batchmean"]

_REDUCTION_MODE_NONE: tl.constexpr = tl.constexpr(0)
_REDUCTION_MODE_SUM: tl.constexpr = tl.constexpr(1)
_REDUCTION_MODE_MEAN: tl.constexpr = tl.constexpr(2)
_REDUCTION_MODE_BATCHMEAN: tl.constexpr = tl.constexpr(3)

_str_to_reduction_mode = {
    "none": _REDUCTION_MODE_NONE.value,
    "sum": _REDUCTION_MODE_SUM.value,
    "mean": _REDUCTION_MODE_MEAN.value,
    "batchmean": _REDUCTION_MODE_BATCHMEAN.value,
}


@triton.jit
def _kldiv_kernel_forward(
    y_ptr,  # [B, S], prediction ptr, the kernel expects the prediction in log-space
    y_stride,  # int, prediction stride
    gt_ptr,  # [B, S], ground truth ptr
    gt_stride,  # int, ground truth stride
    loss_ptr,  # [B] or [B, S] if reduction == _REDUCTION_MODE_NONE, output ptr
    loss_stride,  # int, output stride
    n_cols,  # int, number of columns in the input tensor
    eps,
    BLOCK_SIZE: tl.constexpr,
    log_target: tl.constexpr = False,
    reduction: tl.constexpr = _REDUCTION_MODE_BATCHMEAN,
):
    pid = tl.program_id(0).to(tl.int64)
    y_ptr += pid * y_stride
    gt_ptr += pid * gt_stride
    loss_ptr += pid * loss_stride

    base_offsets = tl.arange(0, BLOCK_SIZE)

    loss_sum = 0.0
    for i in range(0, n_cols, BLOCK_SIZE):
        offsets = i + base_offsets
        mask = offsets < n_cols
        y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
        y_true = tl.load(gt_ptr + offsets, mask=mask, other=0.0)

        # KL(y_true || y) = y_true * (log(y_true) - log(y))
        # We compute KL(y_true || y) with y in the log-space
        if not log_target:
            loss = y_true * (tl.log(tl.maximum(y_true, eps)) - y)
        else:
            loss = tl.exp(y_true) * (y_true - y)

        if reduction == _REDUCTION_MODE_NONE:
            tl.store(loss_ptr + offsets, loss, mask=mask)
        else:
            loss_sum += tl.sum(loss, axis=0)

    if reduction != _REDUCTION_MODE_NONE:
        tl.store(loss_ptr, loss_sum)


def kldiv_forward_triton(y_pred, y_true, log_target, reduction, eps):  # [BT, V]
    BT, V = y_pred.shape
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    num_warps = 32 if infer_device() == "xpu" else get_num_warps(BLOCK_SIZE)

    grid = (BT,)
    reduction = _str_to_reduction_mode[reduction]

    out_size = (BT, V) if reduction == _REDUCTION_MODE_NONE.value else (BT,)
    output_tensor = torch.zeros(out_size, device=y_pred.device, dtype=torch.float32)

    _kldiv_kernel_forward[grid](
        y_pred,
        y_pred.stride(0),
        y_true,
        y_true.stride(0),
        output_tensor,
        output_tensor.stride(0),
        V,
        eps=eps,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
        log_target=log_target,
        reduction=reduction,
    )

    # calculated according to the reduction mode same as in Pytorch. In the later versions, `mean` will be changed to the same behavior as `batchmean`
    # https://pytorch.org/docs/stable/generated/torch.nn.KLDivLoss.html
    # https://github.com/pytorch/pytorch/blob/d7b57c4d63edb42e1deeeba9497fcb5f1f748ff2/torch/nn/functional.py#L3372
    if reduction == _REDUCTION_MODE_BATCHMEAN.value:
        return output_tensor.sum() / BT
    elif reduction == _REDUCTION_MODE_SUM.value:
        return output_tensor.sum(dim=0)
    elif reduction == _REDUCTION_MODE_MEAN.value:
        return output_tensor.sum() / (BT * V)
    else:
        return output_tensor


# ==================================================================================================
# What this project adds (docs/task-format.md): launch, inputs, reference, sizes.
# ==================================================================================================


EPS = 1e-10
REDUCTION = "batchmean"
LOG_TARGET = False


def launch(y_pred, y_true):
    return kldiv_forward_triton(y_pred, y_true, LOG_TARGET, REDUCTION, EPS)


def reference(y_pred, y_true):
    return torch.nn.functional.kl_div(y_pred.double(), y_true.double(), reduction=REDUCTION, log_target=LOG_TARGET).float()


def _inputs(device, rows, vocab):
    y_pred = torch.randn(rows, vocab, device=device, dtype=torch.float32).log_softmax(dim=-1)  # student log-probs
    y_true = torch.randn(rows, vocab, device=device, dtype=torch.float32).softmax(dim=-1)  # teacher probs
    return (y_pred, y_true)


def make_inputs(device):
    return _inputs(device, 1024, 128256)  # 525 MB each


def make_small_inputs(device):
    return _inputs(device, 4, 1000)  # one 1024-wide chunk per row, the last 24 columns masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    return [
        make_small_inputs(device),  # 4 x 1000: one 1024-wide chunk per row, the last 24 columns masked
        _inputs(device, 7, 2053),  # a prime vocab: one 4096-wide chunk per row, 2043 columns masked
        _inputs(device, 1, 16411),  # one row wider than MAX_FUSED_SIZE (16384): two chunks, the second with 27 columns
    ]


def bytes_moved(y_pred, y_true):
    return 2 * y_pred.numel() * y_pred.element_size() + y_pred.shape[0] * 4


def flops(y_pred, y_true):
    return 5 * y_pred.numel()  # max, log, subtract, multiply, sum


TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}
