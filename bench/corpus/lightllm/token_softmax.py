"""Decode-attention softmax over each request's scores (LightLLM `token_softmax_fwd`): 32 heads x 320 requests of 4096..8192 cached tokens each (about 2M scores per head), fp16.

Provenance: ModelTC/lightllm@fc72ffab9a3455cfb571f22d45ab777cc29de0de:lightllm/models/llama/triton_kernel/token_attention_nopad_softmax.py
(Apache-2.0; the file carries no copyright line, and the repository's LICENSE is the Apache License
2.0 text with its notice left unfilled). Copied verbatim: the kernel `_fwd_kernel_token_softmax`
(one program per (request, head): the request's whole score row, BLOCK_SIZE =
next_power_of_2(max_input_len) wide, in fp32) and the wrapper `token_softmax_fwd`
(`@torch.no_grad()`, 4, 8 or 16 warps by BLOCK_SIZE). Left out: the file's `test1`. Nothing in the
kernel or the wrapper changed. The scores are laid out [head, token] over the packed tokens of
all requests (B_Start_Loc, B_Seqlen), as LightLLM's token attention writes them; the probabilities
go to an output `launch` allocates.

The launch: max_input_len 8192 gives BLOCK_SIZE 8192 and 16 warps, grid (320, 32); requests shorter
than 8192 leave the rest of their block masked.

`torch_baseline` is the PyTorch a user would write without a loop over requests (a padded, masked
softmax); the reference loops over the requests, and torch.compile of that loop took 52.5 ms on an
H100 (2026-12-07), which said nothing about the kernel.
"""
import torch
import triton
import triton.language as tl


# --------------------------------------------------------------------------------------------------
# lightllm/models/llama/triton_kernel/token_attention_nopad_softmax.py, verbatim
# --------------------------------------------------------------------------------------------------
@triton.jit
def _fwd_kernel_token_softmax(
    Logics, B_Start_Loc, B_Seqlen,
    Prob_Out,
    stride_logic_h, stride_logic_bs,
    stride_prob_h, stride_prob_bs,
    BLOCK_SIZE: tl.constexpr
):
    cur_batch = tl.program_id(0)
    cur_head = tl.program_id(1)

    col_offsets = tl.arange(0, BLOCK_SIZE)
    cur_batch_seq_len = tl.load(B_Seqlen + cur_batch)
    cur_batch_in_all_start_index = tl.load(B_Start_Loc + cur_batch)

    row = tl.load(Logics + cur_head * stride_logic_h + (cur_batch_in_all_start_index + col_offsets) * stride_logic_bs,
                  mask=col_offsets < cur_batch_seq_len, other=-float('inf')).to(tl.float32)

    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator

    tl.store(Prob_Out + cur_head * stride_prob_h + (cur_batch_in_all_start_index + col_offsets)
             * stride_prob_bs, softmax_output, mask=col_offsets < cur_batch_seq_len)
    return


@torch.no_grad()
def token_softmax_fwd(Logics, B_Start_Loc, B_Seqlen, Prob_Out, max_input_len):
    BLOCK_SIZE = triton.next_power_of_2(max_input_len)
    batch, head_num = B_Start_Loc.shape[0], Logics.shape[0]

    num_warps = 4
    if BLOCK_SIZE >= 2048:
        num_warps = 8
    if BLOCK_SIZE >= 4096:
        num_warps = 16

    _fwd_kernel_token_softmax[(batch, head_num)](
        Logics, B_Start_Loc, B_Seqlen,
        Prob_Out,
        Logics.stride(0), Logics.stride(1),
        Prob_Out.stride(0), Prob_Out.stride(1),
        num_warps=num_warps,
        BLOCK_SIZE=BLOCK_SIZE,
    )
    return


# ==================================================================================================
# What this project adds: the task around the upstream wrapper.
# ==================================================================================================


def launch(logics, b_start_loc, b_seq_len, max_input_len):
    prob = torch.empty_like(logics)
    token_softmax_fwd(logics, b_start_loc, b_seq_len, prob, max_input_len)
    return prob


def reference(logics, b_start_loc, b_seq_len, max_input_len):
    prob = torch.empty_like(logics, dtype=torch.float32)
    for start, n in zip(b_start_loc.tolist(), b_seq_len.tolist()):
        prob[:, start:start + n] = torch.softmax(logics[:, start:start + n].float(), dim=-1)
    return prob.to(logics.dtype)


def torch_baseline(logics, b_start_loc, b_seq_len, max_input_len):
    # What a PyTorch user runs instead of the reference's loop over requests (which torch.compile
    # unrolls into 320 softmaxes): the requests gathered into a (heads, requests, max_input_len)
    # block, the tail masked with -inf, one softmax, and each token's probability gathered back.
    start, pos = b_start_loc.long(), torch.arange(max_input_len, device=logics.device)
    index = (start[:, None] + pos[None, :]).clamp(max=logics.shape[1] - 1)
    block = logics[:, index].float().masked_fill(pos[None, :] >= b_seq_len[:, None].long(), float("-inf"))
    prob = torch.softmax(block, dim=-1)
    token = torch.arange(logics.shape[1], device=logics.device)
    request = torch.searchsorted(start, token, right=True) - 1
    return prob[:, request, token - start[request]].to(logics.dtype)


def _inputs(device, heads, requests, min_len, max_len):
    g = torch.Generator().manual_seed(0)
    seq_len = torch.randint(min_len, max_len + 1, (requests,), generator=g, dtype=torch.int32)
    seq_len[0] = max_len  # the longest request sets the block
    start = torch.cumsum(seq_len, 0, dtype=torch.int32) - seq_len
    total = int(seq_len.sum())
    logics = (2.0 * torch.randn(heads, total, device=device, dtype=torch.float32)).to(torch.float16)
    return (logics, start.to(device), seq_len.to(device), max_len)


def make_inputs(device):
    return _inputs(device, 32, 320, 4096, 8192)  # scores: 2 x 128 MB (read, written)


def make_small_inputs(device):
    return _inputs(device, 3, 4, 20, 100)  # a 128-wide block, partly masked in every request


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small input, then
    return [make_small_inputs(device),
            _inputs(device, 3, 7, 61, 1031),  # a 2048-wide block (8 warps), 7 requests of 61..1031 tokens
            _inputs(device, 1, 1, 1, 1)]  # one head, one request of one token: BLOCK_SIZE = 1, the output is 1


def bytes_moved(logics, b_start_loc, b_seq_len, max_input_len):
    return 2 * logics.numel() * logics.element_size() + 2 * b_seq_len.numel() * 4


def flops(logics, b_start_loc, b_seq_len, max_input_len):
    return 5 * logics.numel()  # max, subtract, exp, sum, divide


TOLERANCE = {"rtol": 1e-2, "atol": 1e-3}
