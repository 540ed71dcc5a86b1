"""l0-grid-order-rereads is silent on a dense 2D copy: axis 1 picks a block of columns by offset,
so the programs of one row read disjoint parts of it and nothing is read twice."""
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
    selected = tl.load(inp + row * N + cols, mask=col_mask)
    tl.store(out + row * index_len + cols, selected, mask=col_mask)


def launch(x, index):
    M, N = x.shape
    L = N
    out = torch.empty((M, L), device=x.device, dtype=x.dtype)
    gather_kernel[(M, triton.cdiv(L, 512))](x, out, M, N, index, L, BLOCK_N=512)
    return out


def reference(x, index):
    return x.clone()


def make_inputs(device):
    x = torch.randn(4096, 16384, device=device, dtype=torch.float16)
    return (x, torch.randint(0, 16384, (8192,), device=device))


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
