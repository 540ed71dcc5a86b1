"""Embedding lookup: out[i, :] = table[ids[i], :] for 32768 int64 token ids (8 x 4096) into a (32000, 4096) fp16 table.

Provenance: the direct draft of an embedding forward (as in many LLM-written Triton embedding
kernels): a 2-D grid of (token, 1024-column chunk), each program reads its token id, then copies
that chunk of the table row to the output row.

Weaknesses: each program moves only 2 KB (one 16-byte load and store per thread), so the bytes in
flight per SM are bounded by how many of these short programs are resident, and 262,144 programs
each pay their start-up and the dependent id-then-row load latency; no persistent loop over tokens
or several tokens per program; a fixed BLOCK of 1024 with the default num_warps and no autotuning.

bytes_moved counts one table row read and one output row written per token, plus the ids.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(ids_ptr, table_ptr, out_ptr, dim, table_row_stride, out_row_stride,
                     BLOCK: tl.constexpr):
    tok = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < dim
    idx = tl.load(ids_ptr + tok)
    row = tl.load(table_ptr + idx * table_row_stride + cols, mask=mask)
    tl.store(out_ptr + tok * out_row_stride + cols, row, mask=mask)


def launch(ids, table):
    n_tokens = ids.numel()
    dim = table.shape[1]
    out = torch.empty((n_tokens, dim), device=table.device, dtype=table.dtype)
    grid = (n_tokens, triton.cdiv(dim, 1024))
    embedding_kernel[grid](ids, table, out, dim, table.stride(0), out.stride(0), BLOCK=1024)
    return out


def reference(ids, table):
    return torch.nn.functional.embedding(ids, table)


def _inputs(device, n_tokens, vocab, dim):
    ids = torch.randint(0, vocab, (n_tokens,), device=device, dtype=torch.int64)
    table = torch.randn(vocab, dim, device=device, dtype=torch.float16)
    return (ids, table)


def make_inputs(device):
    return _inputs(device, 8 * 4096, 32000, 4096)  # table 262 MB, out 268 MB


def make_small_inputs(device):
    return _inputs(device, 37, 50, 1100)  # two column chunks, the second masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime width, one token at the real width
    return [
        make_small_inputs(device),  # 37 ids into 50 x 1100: two column chunks, the second masked
        _inputs(device, 13, 11, 1031),  # prime width: two chunks per token, the second only 7 columns
        _inputs(device, 1, 5, 4096),  # one token (a decode step) at the real width: four full chunks, no masked column
    ]


def bytes_moved(ids, table):
    return ids.numel() * ids.element_size() + 2 * ids.numel() * table.shape[1] * table.element_size()


TOLERANCE = {"rtol": 0.0, "atol": 0.0}  # a copy: exact
