"""A group norm's statistics and normalize loops (Liger-Kernel's shape) stepping by a block the
launch computes as min(65536, next_power_of_2(group size)): 65536 fp32 elements per step on 4
warps is 512 per thread, and ptxas spills. The finding proposes resize-block to 2048 (16 per
thread)."""
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
        x = tl.load(x_ptr + i + offsets, mask=mask, other=0.0)  # CHECK: l2-register-spills
        tl.store(y_ptr + i + offsets, (x - mean) * rstd, mask=mask)


def launch(x):
    groups = x.shape[0]
    group_size = x[0].numel()
    y = torch.empty_like(x)
    BLOCK = min(65536, triton.next_power_of_2(group_size))
    group_norm_kernel[(groups,)](y, x, group_size, 1e-5, BLOCK=BLOCK)
    return y


def reference(x):
    flat = x.reshape(x.shape[0], -1)
    mean = flat.mean(dim=1, keepdim=True)
    var = flat.var(dim=1, unbiased=False, keepdim=True)
    return ((flat - mean) / torch.sqrt(var + 1e-5)).reshape(x.shape)


def make_inputs(device):
    return (torch.randn(64, 16, 4096, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
