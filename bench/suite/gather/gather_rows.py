"""Row gather (index_select dim 0): out[i, :] = src[idx[i], :] for 131072 int32 indices into a (131072, 512) fp32 matrix.

Provenance: the first draft of `torch.index_select(src, 0, idx)` (e.g. gathering node features
for a GNN mini-batch): one program per output row, a loop over the row in chunks of 256 columns,
the index loaded once per program.

Weaknesses: one program per output row (131,072 programs moving 2 KB each, no persistent loop or
several rows per program to keep more loads in flight); a fixed BLOCK of 256 with the default
num_warps (128 threads, so 2 elements per thread: 8-byte accesses instead of 16-byte ones) and no
autotuning; the column loop is not software-pipelined; the row offset idx * row_stride is 32-bit (int32 index times int32
stride), fine at this size but an overflow hazard past 2^31 elements; random rows mean no L2 reuse
to exploit, so only more bytes in flight per SM can help.

bytes_moved counts one source row read and one output row written per index, plus the indices.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def gather_rows_kernel(src_ptr, idx_ptr, out_ptr, n_cols, src_row_stride, out_row_stride,
                       BLOCK: tl.constexpr):
    i = tl.program_id(0)
    r = tl.load(idx_ptr + i)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(src_ptr + r * src_row_stride + cols, mask=mask)
        tl.store(out_ptr + i * out_row_stride + cols, v, mask=mask)


def launch(src, idx):
    n_out = idx.numel()
    n_cols = src.shape[1]
    assert src.stride(1) == 1
    out = torch.empty((n_out, n_cols), device=src.device, dtype=src.dtype)
    gather_rows_kernel[(n_out,)](src, idx, out, n_cols, src.stride(0), out.stride(0), BLOCK=256)
    return out


def reference(src, idx):
    return torch.index_select(src, 0, idx)


def _inputs(device, n_src, n_cols, n_out):
    src = torch.randn(n_src, n_cols, device=device, dtype=torch.float32)
    idx = torch.randint(0, n_src, (n_out,), device=device, dtype=torch.int32)
    return (src, idx)


def make_inputs(device):
    return _inputs(device, 131072, 512, 131072)  # src 268 MB, out 268 MB


def make_small_inputs(device):
    return _inputs(device, 40, 300, 23)  # 300 columns: one full chunk of 256 and a masked one


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, one column past a chunk, one element
    return [
        make_small_inputs(device),  # 23 rows of 300 from 40: one full chunk of 256 and a masked one
        _inputs(device, 17, 257, 61),  # 61 rows of 257 (prime) from 17: a full chunk and one of a single column
        _inputs(device, 1, 1, 1),  # one index into a 1 x 1 source: one program, one masked chunk with one column
    ]


def bytes_moved(src, idx):
    return idx.numel() * idx.element_size() + 2 * idx.numel() * src.shape[1] * src.element_size()


TOLERANCE = {"rtol": 0.0, "atol": 0.0}  # a copy: exact
