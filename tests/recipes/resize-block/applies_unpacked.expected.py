"""resize-block applies to a streaming loop's block that a helper computes: the launch unpacks
`BLOCK, num_warps = calculate_settings(group_size)` (Liger-Kernel's helper and pattern), 65536 fp32
elements per step on 4 warps, 512 per thread, and ptxas spills (l2-register-spills). A line after
the unpacking caps the block at 2048, 16 elements per thread; the loops take more steps."""
import torch
import triton
import triton.language as tl


@triton.jit
def group_norm_kernel(y_ptr, x_ptr, group_size, eps, BLOCK: tl.constexpr):
    x_ptr += tl.program_id(0) * group_size
    y_ptr += tl.program_id(0) * group_size
    offsets = tl.arange(0, BLOCK)
    s = 0.0
    squared_sum = 0.0
    for i in tl.range(0, group_size, BLOCK):
        mask = i + offsets < group_size
        x = tl.load(x_ptr + i + offsets, mask=mask, other=0.0)
        s += tl.sum(x)
        squared_sum += tl.sum(x * x)
    mean = s / group_size
    rstd = 1.0 / tl.sqrt(squared_sum / group_size - mean * mean + eps)
    for i in tl.range(0, group_size, BLOCK):
        mask = i + offsets < group_size
        x = tl.load(x_ptr + i + offsets, mask=mask, other=0.0)
        tl.store(y_ptr + i + offsets, (x - mean) * rstd, mask=mask)


def calculate_settings(n):
    BLOCK_SIZE = min(65536, triton.next_power_of_2(n))
    num_warps = 4
    if BLOCK_SIZE >= 131072:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def launch(x):
    groups = x.shape[0]
    group_size = x[0].numel()
    y = torch.empty_like(x)
    BLOCK, num_warps = calculate_settings(group_size)
    BLOCK = min(2048, BLOCK)
    group_norm_kernel[(groups,)](y, x, group_size, 1e-5, BLOCK=BLOCK, num_warps=num_warps)
    return y


def reference(x):
    flat = x.reshape(x.shape[0], -1)
    mean = flat.mean(dim=1, keepdim=True)
    var = flat.var(dim=1, unbiased=False, keepdim=True)
    return ((flat - mean) / torch.sqrt(var + 1e-5)).reshape(x.shape)


def make_inputs(device):
    return (torch.randn(64, 16, 4096, device=device),)


def make_small_inputs(device):
    return (torch.randn(3, 2, 3000, device=device),)  # 6000 per group: an 8192 block, then 3 steps of 2048


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
