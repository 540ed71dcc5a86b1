"""Column gather out[:, j] = x[:, index[j]] whose store mask keeps only the lanes with a valid
index: the row and column bounds are even for this launch, but `(idx >= 0) & (idx < n_cols)`
is read from memory, so every element of the contiguous output row is stored alone
(st.global.b16) and no shape specialization (even-shape-heuristic) can remove the predicate.
The finding is advice that names the load the mask depends on."""
import torch
import triton
import triton.language as tl


@triton.jit
def gather_columns_kernel(x_ptr, index_ptr, out_ptr, n_cols, n_index, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    in_range = cols < n_index
    idx = tl.load(index_ptr + cols, mask=in_range, other=0)
    valid = in_range & (idx >= 0) & (idx < n_cols)
    values = tl.load(x_ptr + row * n_cols + idx, mask=valid, other=0.0)
    tl.store(out_ptr + row * n_index + cols, values, mask=valid)  # CHECK: l2-narrow-global-access


def launch(x, index):
    out = torch.empty((x.shape[0], index.numel()), device=x.device, dtype=x.dtype)
    grid = (x.shape[0], triton.cdiv(index.numel(), 1024))
    gather_columns_kernel[grid](x, index, out, x.shape[1], index.numel(), BLOCK=1024)
    return out


def reference(x, index):
    return torch.index_select(x, 1, index)


def make_inputs(device):
    x = torch.randn(256, 8192, device=device, dtype=torch.float16)
    index = torch.randint(0, 8192, (4096,), device=device, dtype=torch.int64)
    return (x, index)


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
