"""RoPE forward (Liger-Kernel `LigerRopeFunction`, the Hugging Face Llama rotation) of q (2, 32, 8192, 128) and k (2, 8, 8192, 128) bf16 in place: Llama-3-8B's attention heads at 2 x 8k tokens.

Provenance: linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/rope.py
(BSD-2-Clause, Copyright 2024 LinkedIn Corporation). Copied verbatim: the kernel `_triton_rope` and
the wrapper `rope_forward` (the whole file's imports; it imports nothing from the package). Left
out: `rope_backward` and the autograd Function `LigerRopeFunction`, whose `forward` calls
`rope_forward(q, k, cos, sin)` as `launch` does here.

q and k come as Hugging Face makes them, `q_proj(x).view(bsz, seq, heads, head_dim).transpose(1, 2)`:
(bsz, heads, seq, head_dim) views of (bsz, seq, heads, head_dim) storage, which `rope_forward`
transposes back (its `.contiguous()` is then free) and rotates in place, one program per token
(16384 programs, each rotating all 32 q heads and 8 k heads). cos and sin are (1, seq, head_dim)
bf16 with rope_theta 500000. Upstream rotates q and k in place, and `launch` calls it as the
autograd Function does. The task names them in `MUTATES`: the harness verifies `launch` on copies
of q and k (keeping their strides) and times the kernel on q and k themselves, putting them back
between calls outside the timed region (docs/task-format.md, "Kernels that update their inputs").
"""
# --------------------------------------------------------------------------------------------------
# Copied from linkedin/Liger-Kernel@ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c:src/liger_kernel/ops/rope.py
# BSD-2-Clause, Copyright 2024 LinkedIn Corporation; the license text is in LICENSE beside this file.
# --------------------------------------------------------------------------------------------------


import torch
import triton
import triton.language as tl


@triton.jit
def _triton_rope(
    q_ptr,
    q_row_stride,
    k_ptr,
    k_row_stride,
    cos,
    cos_row_stride,
    sin,
    sin_row_stride,
    sl,
    bs: tl.constexpr,
    cos_bs: tl.constexpr,
    n_qh: tl.constexpr,
    n_kh: tl.constexpr,
    hd: tl.constexpr,
    pad_n_qh: tl.constexpr,
    pad_n_kh: tl.constexpr,
    pad_hd: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    BACKWARD_PASS: tl.constexpr = False,
):
    # q size: (bsz, seq_len, num_q_heads, head_dim)
    # q stride: (seq_len * num_q_heads * head_dim, num_q_heads * head_dim, head_dim, 1)
    # k size: (bsz, seq_len, num_kv_heads, head_dim)
    # k stride: (seq_len * num_kv_heads * head_dim, num_kv_heads * head_dim, head_dim, 1)

    # cos size: (1, seq_len, head_dim) or (bsz, seq_len, head_dim)
    # stride: (seq_len * head_dim, head_dim, 1)
    pid = tl.program_id(0).to(tl.int64)

    # locate start address
    q_ptr = q_ptr + pid * q_row_stride
    k_ptr = k_ptr + pid * k_row_stride

    # ####################################################################
    # get the cos(mθ_{i...d/2}) and sin(mθ_{i...d/2}) for token position
    # m of this program instance
    # ####################################################################

    # 1. program instances are laid out in a 1D vector of size bsz * seq_len, which
    # effectively represents a 2D grid of size [bsz, seq_len] with seq_len dimension
    # being the fastest changing dimension. Thus we can simply do pid // sl to get the batch index
    # and pid % sl to get the sequence index.
    # 2. We only need the left half of cos and sin matrix because the right half is just
    # a clone of the left half.
    batch_idx = pid // sl
    cos_row_idx = pid % sl
    cos = cos + tl.where(
        cos_bs == 1,
        cos_row_idx * cos_row_stride,
        batch_idx * (sl * cos_row_stride) + cos_row_idx * cos_row_stride,
    )
    sin = sin + tl.where(
        cos_bs == 1,
        cos_row_idx * sin_row_stride,
        batch_idx * (sl * sin_row_stride) + cos_row_idx * sin_row_stride,
    )

    cos_offsets = tl.arange(0, pad_hd // 2)
    cos_mask = cos_offsets < hd // 2
    cos_row = tl.load(cos + cos_offsets, mask=cos_mask, other=0)
    sin_row = tl.load(sin + cos_offsets, mask=cos_mask, other=0)

    # ####################################################################
    # Load the left and right half of q and k for the current
    # program instance (i.e. for the current token) separately
    # ####################################################################
    # left half of the head
    first_half_q_offsets = tl.arange(0, pad_n_qh)[:, None] * hd + tl.arange(0, pad_hd // 2)[None, :]
    first_half_k_offsets = tl.arange(0, pad_n_kh)[:, None] * hd + tl.arange(0, pad_hd // 2)[None, :]
    first_q_mask = (tl.arange(0, pad_n_qh)[:, None] < n_qh) & (tl.arange(0, pad_hd // 2)[None, :] < hd // 2)
    first_k_mask = (tl.arange(0, pad_n_kh)[:, None] < n_kh) & (tl.arange(0, pad_hd // 2)[None, :] < hd // 2)
    q_tile_1 = tl.load(q_ptr + first_half_q_offsets, mask=first_q_mask, other=0).to(sin_row.dtype)
    k_tile_1 = tl.load(k_ptr + first_half_k_offsets, mask=first_k_mask, other=0).to(sin_row.dtype)

    # right half of the head
    second_half_q_offsets = first_half_q_offsets + (hd // 2)
    second_half_k_offsets = first_half_k_offsets + (hd // 2)
    second_q_mask = first_q_mask
    second_k_mask = first_k_mask
    q_tile_2 = tl.load(q_ptr + second_half_q_offsets, mask=second_q_mask, other=0).to(sin_row.dtype)
    k_tile_2 = tl.load(k_ptr + second_half_k_offsets, mask=second_k_mask, other=0).to(sin_row.dtype)

    if not BACKWARD_PASS:
        # y = [x1, x2] * [cos, cos] + [-x2, x1] * [sin, sin]
        new_q_tile_1 = q_tile_1 * cos_row - q_tile_2 * sin_row
        tl.store(q_ptr + first_half_q_offsets, new_q_tile_1, mask=first_q_mask)
        new_q_tile_2 = q_tile_2 * cos_row + q_tile_1 * sin_row
        tl.store(q_ptr + second_half_q_offsets, new_q_tile_2, mask=second_q_mask)

        new_k_tile_1 = k_tile_1 * cos_row - k_tile_2 * sin_row
        tl.store(k_ptr + first_half_k_offsets, new_k_tile_1, mask=first_k_mask)
        new_k_tile_2 = k_tile_2 * cos_row + k_tile_1 * sin_row
        tl.store(k_ptr + second_half_k_offsets, new_k_tile_2, mask=second_k_mask)
    else:
        # with some math, we can get:
        # dy = [dx1, dx2] * [cos, cos] + [-dx2, dx1] * [-sin, -sin]
        new_q_tile_1 = q_tile_1 * cos_row + q_tile_2 * sin_row
        tl.store(q_ptr + first_half_q_offsets, new_q_tile_1, mask=first_q_mask)
        new_q_tile_2 = q_tile_2 * cos_row - q_tile_1 * sin_row
        tl.store(q_ptr + second_half_q_offsets, new_q_tile_2, mask=second_q_mask)

        new_k_tile_1 = k_tile_1 * cos_row + k_tile_2 * sin_row
        tl.store(k_ptr + first_half_k_offsets, new_k_tile_1, mask=first_k_mask)
        new_k_tile_2 = k_tile_2 * cos_row - k_tile_1 * sin_row
        tl.store(k_ptr + second_half_k_offsets, new_k_tile_2, mask=second_k_mask)


def rope_forward(q, k, cos, sin):
    # transpose it back to the physical shape because Triton looks at the physical storage
    # note: q and k are incontiguous before the transformation and will become contiguous after transpose
    q = q.transpose(1, 2)
    k = k.transpose(1, 2)

    batch_size, seq_len, n_q_head, head_dim = q.shape
    n_kv_head = k.shape[2]
    pad_hd = triton.next_power_of_2(head_dim)
    pad_n_q_head = triton.next_power_of_2(n_q_head)
    pad_n_kv_head = triton.next_power_of_2(n_kv_head)
    BLOCK_SIZE = max(pad_n_q_head, pad_n_kv_head)

    n_row = batch_size * seq_len

    # ensure tensors passed into the kernel are contiguous. It will be no-op if they are already contiguous
    q = q.contiguous()
    k = k.contiguous()
    cos = cos.contiguous()
    sin = sin.contiguous()
    cos_batch_size = cos.shape[0]

    _triton_rope[(n_row,)](
        q,
        q.stride(1),
        k,
        k.stride(1),
        cos,
        cos.stride(-2),
        sin,
        sin.stride(-2),
        seq_len,
        batch_size,
        cos_batch_size,
        n_q_head,
        n_kv_head,
        head_dim,
        pad_n_q_head,
        pad_n_kv_head,
        pad_hd,
        BLOCK_SIZE=BLOCK_SIZE,
        BACKWARD_PASS=False, num_warps=8,
    )
    return q.transpose(1, 2), k.transpose(1, 2), cos, sin


# ==================================================================================================
# What this project adds (docs/task-format.md): launch, inputs, reference, sizes.
# ==================================================================================================


ROPE_THETA = 500000.0


MUTATES = ("q", "k")


def launch(q, k, cos, sin):
    q, k, cos, sin = rope_forward(q, k, cos, sin)
    return q, k


def _rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def reference(q, k, cos, sin):
    # transformers' apply_rotary_pos_emb (unsqueeze_dim=1), in the tensors' dtype as the model runs it
    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)
    return (q * cos) + (_rotate_half(q) * sin), (k * cos) + (_rotate_half(k) * sin)


def _inputs(device, bsz, seq, n_q_head, n_kv_head, head_dim):
    q = torch.randn(bsz, seq, n_q_head, head_dim, device=device, dtype=torch.bfloat16).transpose(1, 2)
    k = torch.randn(bsz, seq, n_kv_head, head_dim, device=device, dtype=torch.bfloat16).transpose(1, 2)
    # LlamaRotaryEmbedding: inv_freq over the even dimensions, cos/sin of [freqs, freqs] in the input dtype
    inv_freq = 1.0 / (ROPE_THETA ** (torch.arange(0, head_dim, 2, device=device, dtype=torch.float32) / head_dim))
    pos = torch.arange(seq, device=device, dtype=torch.float32)
    freqs = pos[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)[None]
    return (q, k, emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16))


def make_inputs(device):
    return _inputs(device, 2, 8192, 32, 8, 128)  # q: 134 MB, k: 34 MB


def make_small_inputs(device):
    return _inputs(device, 2, 8, 6, 2, 96)  # heads padded 6 -> 8, half head 48 -> 64: both masks used


def make_test_inputs(device):
    # the shapes every candidate is also verified at
    return [
        make_small_inputs(device),  # heads padded 6 -> 8, half head 48 -> 64: both masks used
        _inputs(device, 3, 7, 10, 5, 74),  # 3 x 7 rows; heads padded 10 -> 16 and 5 -> 8, half head 37 -> 64
        _inputs(device, 1, 1, 1, 1, 2),  # one token, one q and one kv head of the smallest head dim (2): 1-wide tiles
    ]


def bytes_moved(q, k, cos, sin):
    qk = (q.numel() + k.numel()) * q.element_size()
    return 2 * qk + (cos.numel() + sin.numel()) * cos.element_size()


def flops(q, k, cos, sin):
    return 3 * (q.numel() + k.numel())  # two multiplies and an add per element


TOLERANCE = {"rtol": 2e-2, "atol": 2e-2}

