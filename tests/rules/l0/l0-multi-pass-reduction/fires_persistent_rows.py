"""l0-multi-pass-reduction fires on a persistent row loop (each program walks rows
pid, pid + nprog, ...) whose sum pass and scale pass both reload the row. The passes sit inside the
row loop, not at the top of the kernel, and single-pass-reduction fuses top-level passes only, so
the finding gives that change as advice naming the enclosing loop
(FindingDetails.MultiPassReductionProposesSinglePassOnlyForTopLevelPasses)."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_normalize_kernel(x_ptr, y_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x_row = x_ptr + row * stride
        y_row = y_ptr + row * stride
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0)  # CHECK: l0-multi-pass-reduction
        total = tl.sum(acc, axis=0)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0)
            tl.store(y_row + cols, x / total, mask=cols < n_cols)


def launch(x):
    rows, cols = x.shape
    y = torch.empty_like(x)
    row_normalize_kernel[(132,)](x, y, x.stride(0), rows, cols, BLOCK=1024)
    return y


def reference(x):
    return x / x.sum(dim=-1, keepdim=True)


def make_inputs(device):
    return (torch.rand(4096, 8192, device=device) + 0.5,)
