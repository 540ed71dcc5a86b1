"""Cross-entropy per row: loss[i] = logsumexp(logits[i]) - logits[i, target[i]] for fp32 logits (4096, 32000) (524 MB read).

The per-token loss of a language model with a 32,000-token vocabulary (Llama-2) over
4096 tokens, int64 targets, reduction="none".

Provenance: a direct translation of the formula: one program per row, the row in chunks
of 1024 columns, a first loop for the row max and a second for the sum of exp(x - max),
then the target logit loaded as a scalar (the two-pass shape of the textbook softmax).

Weaknesses: every row (128 KB) is read twice (max pass, then sum pass) where an online
max/sum reads it once; fixed BLOCK=1024 and default num_warps=4, no autotuning; one
program per row, only 4096 programs of 32 chunk iterations each, with no pipelining hints
on the loops; every chunk is masked, though only the last of the 32 (32000 = 31.25 x 1024)
is partial; tl.exp/tl.log rather than exp2/log2 with pre-scaled inputs; no
ignore_index handling (every target is assumed valid).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, targets_ptr, loss_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_ptr = logits_ptr + row * row_stride

    row_max = -float("inf")
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < n_cols, other=-float("inf"))
        row_max = tl.maximum(row_max, tl.max(x, axis=0))

    sum_exp = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < n_cols, other=-float("inf"))
        sum_exp += tl.sum(tl.exp(x - row_max), axis=0)

    target = tl.load(targets_ptr + row)
    target_logit = tl.load(row_ptr + target)
    loss = tl.log(sum_exp) + row_max - target_logit
    tl.store(loss_ptr + row, loss)


def launch(logits, targets):
    assert logits.dim() == 2 and logits.stride(1) == 1 and targets.shape == (logits.shape[0],)
    n_rows, n_cols = logits.shape
    loss = torch.empty(n_rows, device=logits.device, dtype=torch.float32)
    cross_entropy_kernel[(n_rows,)](logits, targets, loss, n_cols, logits.stride(0), BLOCK=1024)
    return loss


def reference(logits, targets):
    return torch.nn.functional.cross_entropy(logits, targets, reduction="none")


def make_inputs(device):
    n_rows, vocab = 4096, 32000
    logits = torch.randn(n_rows, vocab, device=device, dtype=torch.float32)  # 524 MB
    targets = torch.randint(0, vocab, (n_rows,), device=device, dtype=torch.int64)
    return (logits, targets)


def make_small_inputs(device):
    n_rows, vocab = 4, 1500  # a full chunk then a partial one
    logits = torch.randn(n_rows, vocab, device=device, dtype=torch.float32)
    targets = torch.randint(0, vocab, (n_rows,), device=device, dtype=torch.int64)
    return (logits, targets)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime vocabulary with a tiny last chunk, and one class
    def inputs(n_rows, vocab):
        logits = torch.randn(n_rows, vocab, device=device, dtype=torch.float32)
        targets = torch.randint(0, vocab, (n_rows,), device=device, dtype=torch.int64)
        return (logits, targets)

    return [
        make_small_inputs(device),  # 4 x 1500: a full chunk then a partial one
        inputs(5, 2053),  # prime vocabulary: 3 chunks per pass, the last only 5 columns
        inputs(1, 1),  # one row, one class (target 0, loss 0): one program, 1023 lanes masked
    ]


def bytes_moved(logits, targets):
    return logits.numel() * logits.element_size() + targets.numel() * targets.element_size() + logits.shape[0] * 4


TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}  # losses ~10.9
