"""group-program-order applies to a row gather on a 2D grid (FlagGems' index_select shape,
l0-grid-order-rereads): the 16 programs that gather from one row of x run 4096 programs apart.
The recipe enumerates the grid in launch order and groups 8 rows, walked across all 16 index
blocks, so the programs that share a row run together. The ids come from a helper that returns
them as int64 (FlagGems' `tle.program_id`): the enumeration is computed in int64 as well."""
import torch
import triton
import triton.language as tl
GROUP_SIZE_M = tl.constexpr(8)


@triton.jit
def program_id(axis: tl.constexpr):
    return tl.program_id(axis).to(tl.int64)


@triton.jit
def gather_kernel(inp, out, M, N, index, index_len, BLOCK_N: tl.constexpr):
    pid = tl.program_id(1).to(tl.int64) * tl.num_programs(0) + tl.program_id(0)
    num_pid_n = tl.num_programs(1)
    num_pid_m = tl.num_programs(0)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    row = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    col_block = (pid % num_pid_in_group) // group_size_m
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < index_len
    indices = tl.load(index + cols, mask=col_mask, other=0)
    selected = tl.load(inp + row * N + indices, mask=col_mask)
    tl.store(out + row * index_len + cols, selected, mask=col_mask)


def launch(x, index):
    M, N = x.shape
    L = index.numel()
    out = torch.empty((M, L), device=x.device, dtype=x.dtype)
    gather_kernel[(M, triton.cdiv(L, 512))](x, out, M, N, index, L, BLOCK_N=512)
    return out


def reference(x, index):
    return torch.index_select(x, 1, index)


def make_inputs(device):
    x = torch.randn(4096, 16384, device=device, dtype=torch.float16)
    return (x, torch.randint(0, 16384, (8192,), device=device))


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
