"""l0-grid-order-rereads fires: a row gather in FlagGems' index_select shape. Axis 0 of the grid picks
the row, axis 1 the block of indices; the 16 programs that gather from one row of x (128 MiB, more
than the L2) run 4096 programs apart, so each row is read from DRAM up to 16 times. The program
ids come from a helper that widens them to int64, as FlagGems' `tle.program_id` does."""
import torch
import triton
import triton.language as tl


@triton.jit
def program_id(axis: tl.constexpr):
    return tl.program_id(axis).to(tl.int64)


@triton.jit
def gather_kernel(inp, out, M, N, index, index_len, BLOCK_N: tl.constexpr):
    row = program_id(axis=0)
    col_block = program_id(axis=1)
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < index_len
    indices = tl.load(index + cols, mask=col_mask, other=0)
    selected = tl.load(inp + row * N + indices, mask=col_mask)  # CHECK: l0-grid-order-rereads
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
