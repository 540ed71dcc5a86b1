"""l0-masked-lanes stays silent: the grid counts blocks of query heads, and the key loads mask
the programs past the key heads (LightLLM's rotary kernel does this). Those programs are idle for
the key access whatever the block size; the blocks that reach the key heads are full."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_heads_kernel(q_ptr, k_ptr, n_q_heads, n_k_heads, head_dim: tl.constexpr, BLOCK_HEAD: tl.constexpr):
    heads = tl.program_id(0) * BLOCK_HEAD + tl.arange(0, BLOCK_HEAD)
    dims = tl.arange(0, head_dim)
    q_mask = heads[:, None] < n_q_heads
    q = tl.load(q_ptr + heads[:, None] * head_dim + dims[None, :], mask=q_mask)
    tl.store(q_ptr + heads[:, None] * head_dim + dims[None, :], q * 2.0, mask=q_mask)
    k_mask = heads[:, None] < n_k_heads
    k = tl.load(k_ptr + heads[:, None] * head_dim + dims[None, :], mask=k_mask)
    tl.store(k_ptr + heads[:, None] * head_dim + dims[None, :], k * 2.0, mask=k_mask)


def launch(q, k):
    q, k = q.clone(), k.clone()
    BLOCK_HEAD = 16
    grid = (triton.cdiv(q.shape[0], BLOCK_HEAD),)
    scale_heads_kernel[grid](q, k, q.shape[0], k.shape[0], head_dim=q.shape[1], BLOCK_HEAD=BLOCK_HEAD)
    return q, k


def reference(q, k):
    return q * 2.0, k * 2.0


def make_inputs(device):
    return (torch.randn(64, 128, device=device), torch.randn(16, 128, device=device))
