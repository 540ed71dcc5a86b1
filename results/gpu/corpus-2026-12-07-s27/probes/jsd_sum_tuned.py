"""Generalized Jensen-Shannon divergence forward (Liger-Kernel `LigerJSDFunction`, beta 0.5, with labels) and its gradient over (1024, 128256) bf16 log-probabilities: distillation on Llama-3's vocabulary, 1k tokens.

Provenance: linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/jsd.py
(BSD-2-Clause, Copyright 2024 LinkedIn Corporation). Copied verbatim: the kernel `_jsd_kernel` (one
program per row, a loop over BLOCK_SIZE chunks writing the per-element loss and dX),
`MAX_FUSED_SIZE` and the wrapper `jsd_forward`. Left out: `jsd_backward` and the autograd Function
`LigerJSDFunction`, whose `forward` calls `jsd_forward(_input, target, shift_labels, beta,
ignore_index, has_label)` as `launch` does here (beta 0.5, ignore_index -100, labels given). The
package import `infer_device` is replaced by a verbatim copy of it and the `is_npu_available` it
calls, from src/liger_kernel/utils.py at the same commit.

The launch: BLOCK_SIZE = min(65536, next_power_of_2(128256)) = 65536 with Triton's default 4 warps,
1024 programs of two chunks. The wrapper materializes the unreduced loss as a (1024, 128256) fp32
tensor (zero-filled, written by the kernel, then `torch.sum`): 525 MB written and read again for a
scalar, which `bytes_moved` (inputs read once, dX and the scalar written once) does not count. It
reads the labels on the host (`.sum().item()`) to count the non-ignored rows.
"""
# --------------------------------------------------------------------------------------------------
# Copied from linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/jsd.py
# BSD-2-Clause, Copyright 2024 LinkedIn Corporation; the license text is in LICENSE beside this file.
# --------------------------------------------------------------------------------------------------


from typing import Optional

import torch
import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# Helpers the code below imports from the liger_kernel package, copied verbatim at the same commit
# from src/liger_kernel/utils.py: infer_device, is_npu_available
# --------------------------------------------------------------------------------------------------


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
# src/liger_kernel/ops/jsd.py continues
# --------------------------------------------------------------------------------------------------


@triton.jit
def _jsd_kernel(
    X_ptr,  # input in logspace, X = log Q
    X_stride,
    Y_ptr,  # ground truth in logspace, Y = log P
    Y_stride,
    loss_ptr,
    loss_stride,
    dX_ptr,
    dX_stride,
    label_ptr,
    beta: tl.constexpr,
    n_non_ignore: int,
    ignore_index: tl.constexpr,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
    HAS_LABEL: tl.constexpr, sum_partials,
):
    # JSD(P || Q) = (KL(P || M) + KL(Q || M)) / 2, M = (1/2) * (P + Q) = (1/2) * (e ^ Y + e ^ X)
    #             = sum(P * log P + Q * log Q - 2 * M * log M) / 2
    #             = sum(e ^ Y * Y + e ^ X * X - 2 * M * log M) / 2
    # grad_x_i = 0.5 * Q * (X - log_M)
    sum_total = 0.0
    pid = tl.program_id(0).to(tl.int64)
    X_ptr += pid * X_stride
    dX_ptr += pid * dX_stride
    Y_ptr += pid * Y_stride
    loss_ptr += pid * loss_stride
    label_ptr += pid

    if HAS_LABEL:
        label = tl.load(label_ptr)
        if label == ignore_index:
            for i in range(0, n_cols, BLOCK_SIZE):
                offsets = i + tl.arange(0, BLOCK_SIZE)
                tl.store(dX_ptr + offsets, 0.0, mask=offsets < n_cols)
            tl.store(sum_partials + tl.program_id(0), sum_total)
            return

    for i in range(0, n_cols, BLOCK_SIZE):
        offsets = i + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_cols
        X = tl.load(X_ptr + offsets, mask=mask, other=float("-inf")).to(tl.float32)
        Y = tl.load(Y_ptr + offsets, mask=mask, other=float("-inf")).to(tl.float32)

        if beta == 0.0:  # forward KL
            Y_max = tl.max(Y, axis=0)
            Y_shifted = Y - Y_max
            Y_prob = tl.exp(Y_shifted) * tl.exp(Y_max)  # Compensate for the shift
            loss = Y_prob * (Y - X)
            dX = -Y_prob
        elif beta == 1.0:  # reverse KL
            X_max = tl.max(X, axis=0)
            X_shifted = X - X_max
            X_prob = tl.exp(X_shifted) * tl.exp(X_max)  # Compensate for the shift
            loss = X_prob * (X - Y)
            dX = loss + X_prob
        else:
            max_val = tl.maximum(tl.max(X, axis=0), tl.max(Y, axis=0))
            X_shifted = X - max_val
            Y_shifted = Y - max_val

            # Pre-compute exp(max_val) since it's used twice
            exp_max = tl.exp(max_val)

            # Compute exp terms with compensation
            Q = tl.exp(X_shifted) * exp_max  # = exp(X)
            P = tl.exp(Y_shifted) * exp_max  # = exp(Y)

            # Pre-compute common terms
            beta_P = beta * P
            one_minus_beta_Q = (1 - beta) * Q
            M = beta_P + one_minus_beta_Q
            log_M = tl.log(M)  # No need to compensate as M is already in original scale

            loss = beta_P * Y + one_minus_beta_Q * X - M * log_M
            dX = one_minus_beta_Q * (X - log_M)

        # Pre-compute scaling factor
        scale = 1.0 / n_non_ignore
        loss = loss * scale
        dX = dX * scale

        sum_total += tl.sum(tl.where(mask, loss, 0.0).to(tl.float32))
        tl.store(dX_ptr + offsets, dX, mask=mask)
    tl.store(sum_partials + tl.program_id(0), sum_total)


MAX_FUSED_SIZE = 4096 if infer_device() == "xpu" else 65536


def jsd_forward(_input, target, shift_labels, beta, ignore_index, has_label):
    BT, V = _input.shape
    n_rows = BT
    BLOCK_SIZE = min(16384, min(MAX_FUSED_SIZE, triton.next_power_of_2(V)))
    # non reduction loss
    loss = torch.zeros(1, dtype=torch.float32, device=_input.device).expand(_input.shape)
    dX = torch.empty_like(_input)

    if has_label:
        n_non_ignore = (shift_labels != ignore_index).sum().item()
    else:
        n_non_ignore = BT

    sum_partials = torch.zeros(n_rows, dtype=torch.float32, device=loss.device)
    _jsd_kernel[(n_rows,)](
        X_ptr=_input,  # input in logspace, X = log Q
        X_stride=_input.stride(-2),
        Y_ptr=target,  # ground truth in logspace, Y = log P
        Y_stride=target.stride(-2),
        loss_ptr=loss,
        loss_stride=loss.stride(-2),
        dX_ptr=dX,
        dX_stride=dX.stride(-2),
        label_ptr=(shift_labels if has_label else torch.empty(1, device=_input.device)),  # dummy ptr if no label
        beta=beta,
        n_non_ignore=n_non_ignore,
        ignore_index=ignore_index,
        n_cols=V,
        BLOCK_SIZE=BLOCK_SIZE,
        HAS_LABEL=has_label, sum_partials=sum_partials, num_warps=16,
    )

    loss = sum_partials.sum().to(loss.dtype)
    return loss.to(_input.dtype), dX


# ==================================================================================================
# What this project adds (docs/task-format.md): launch, inputs, reference, sizes.
# ==================================================================================================


BETA = 0.5
IGNORE_INDEX = -100


def launch(_input, target, shift_labels):
    loss, dX = jsd_forward(_input, target, shift_labels, BETA, IGNORE_INDEX, True)
    return loss, dX


def reference(_input, target, shift_labels):
    X = _input.float()  # log Q (student)
    Y = target.float()  # log P (teacher)
    valid = (shift_labels != IGNORE_INDEX)[:, None]
    n = valid.sum()
    P, Q = Y.exp(), X.exp()
    M = BETA * P + (1 - BETA) * Q
    log_M = M.log()
    loss = torch.where(valid, BETA * P * Y + (1 - BETA) * Q * X - M * log_M, 0.0).sum() / n
    dX = torch.where(valid, (1 - BETA) * Q * (X - log_M) / n, 0.0)
    return loss.to(_input.dtype), dX.to(_input.dtype)


def _inputs(device, rows, vocab):
    _input = torch.randn(rows, vocab, device=device, dtype=torch.float32).log_softmax(dim=-1).to(torch.bfloat16)
    target = torch.randn(rows, vocab, device=device, dtype=torch.float32).log_softmax(dim=-1).to(torch.bfloat16)
    shift_labels = torch.randint(0, vocab, (rows,), device=device, dtype=torch.int64)
    shift_labels[::20] = IGNORE_INDEX
    return (_input, target, shift_labels)


def make_inputs(device):
    return _inputs(device, 1024, 128256)  # input, target and dX: 263 MB each


def make_small_inputs(device):
    return _inputs(device, 24, 1000)  # one 1024-wide chunk per row, the last 24 columns masked; rows 0 and 20 ignored


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    one_input, one_target, one_label = _inputs(device, 1, 257)
    one_label[0] = 0  # _inputs ignores row 0: here the one row counts
    return [
        make_small_inputs(device),  # 24 x 1000: one 1024-wide chunk per row, 24 columns masked; rows 0 and 20 ignored
        _inputs(device, 7, 2053),  # a prime vocab: one 4096-wide chunk per row, 2043 columns masked; row 0 ignored
        (one_input, one_target, one_label),  # a single row (n_non_ignore = 1): one program, a 512-wide chunk
    ]


def bytes_moved(_input, target, shift_labels):
    return 3 * _input.numel() * _input.element_size() + shift_labels.numel() * shift_labels.element_size()


def flops(_input, target, shift_labels):
    return 20 * _input.numel()  # about: two maxima, three exp, a log and the loss and gradient arithmetic


TOLERANCE = {"rtol": 2e-2, "atol": 1e-9}  # dX entries are ~1 / (vocab * tokens)
