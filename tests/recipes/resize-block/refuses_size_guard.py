"""resize-block refuses: the launch computes the streaming loop's block (65536, 512 fp32 elements
per thread on 4 warps; ptxas spills) and also checks the group size against it (`if group_size >
BLOCK: raise`, the tutorial layer norm's guard): capped at 2048, the block would make the launch
refuse the captured input, so the recipe declines."""
# DECLINES: the launch checks the sizes it accepts against BLOCK
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


def launch(x):
    groups = x.shape[0]
    group_size = x[0].numel()
    y = torch.empty_like(x)
    BLOCK = min(65536, triton.next_power_of_2(group_size))
    if group_size > BLOCK:
        raise RuntimeError("groups of more than 64K elements are not supported")
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
