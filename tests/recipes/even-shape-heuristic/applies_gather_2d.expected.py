"""even-shape-heuristic applies to FlagGems' index_select spelling: a 2D grid whose row block is
built with its own broadcast, `pid_x * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]`, program ids read
through a helper with `axis=` keywords, and one mask `rows_mask and (cols < index_len)` shared
by the index load and the gather. M = 64 and index_len = 512 are multiples of the blocks, so both
bounds are always true and one flag EVEN_INDEX_LEN_M guards the statements."""
import torch
import triton
import triton.language as tl


@triton.jit
def program_id(axis: tl.constexpr):
    return tl.program_id(axis).to(tl.int64)


@triton.jit
def index_select_kernel(inp, out, M, N, index, index_len, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, EVEN_M_INDEX_LEN: tl.constexpr):
    pid_x = program_id(axis=0)
    pid_y = program_id(axis=1)
    rows_offsets = pid_x * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    rows_mask = rows_offsets < M
    cols_offsets = pid_y * BLOCK_N + tl.arange(0, BLOCK_N)
    out_mask = rows_mask and (cols_offsets < index_len)
    if EVEN_M_INDEX_LEN:
        indices = tl.load(index + cols_offsets)
        inp_off = rows_offsets * N + indices[None, :]
        out_off = rows_offsets * index_len + cols_offsets[None, :]
        selected = tl.load(inp + inp_off)
        tl.store(out + out_off, selected)
    else:
        indices = tl.load(index + cols_offsets, mask=(cols_offsets < index_len), other=0)
        inp_off = rows_offsets * N + indices[None, :]
        out_off = rows_offsets * index_len + cols_offsets[None, :]
        selected = tl.load(inp + inp_off, mask=out_mask, other=0.0)
        tl.store(out + out_off, selected, mask=out_mask)


def launch(x, index):
    M, N = x.shape
    index_len = index.numel()
    out = torch.empty((M, index_len), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, 4), triton.cdiv(index_len, 128))
    even_m_index_len = M % 4 == 0 and index_len % 128 == 0
    index_select_kernel[grid](x, out, M, N, index, index_len, BLOCK_M=4, BLOCK_N=128, EVEN_M_INDEX_LEN=even_m_index_len)
    return out


def reference(x, index):
    return torch.index_select(x, 1, index)


def make_inputs(device):
    x = torch.randn(64, 1000, device=device)
    index = torch.randint(0, 1000, (512,), device=device, dtype=torch.int64)
    return (x, index)
