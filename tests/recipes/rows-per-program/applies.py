"""rows-per-program applies: a first-draft RoPE, one program per (batch, position, head) row of 64
elements. The 32-element half rows are smaller than the program's 128 threads (l2-replicated-loads);
no parameter receives the grid's size, so the recipe adds n_grid_rows."""
import torch
import triton
import triton.language as tl


@triton.jit
def rotary_kernel(q_ptr, cos_ptr, sin_ptr, out_ptr, S, H, half, stride_qs, stride_qh, stride_cs,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    h = pid % H
    s = (pid // H) % S
    b = pid // (H * S)
    offs = tl.arange(0, BLOCK)
    mask = offs < half
    row = b * S * stride_qs + s * stride_qs + h * stride_qh
    x1 = tl.load(q_ptr + row + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(q_ptr + row + half + offs, mask=mask, other=0.0).to(tl.float32)
    cos = tl.load(cos_ptr + s * stride_cs + offs, mask=mask, other=0.0)
    sin = tl.load(sin_ptr + s * stride_cs + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row + offs, (x1 * cos - x2 * sin).to(tl.float16), mask=mask)
    tl.store(out_ptr + row + half + offs, (x2 * cos + x1 * sin).to(tl.float16), mask=mask)


def launch(q, cos, sin):
    B, S, H, D = q.shape
    out = torch.empty_like(q)
    rotary_kernel[(B * S * H,)](q, cos, sin, out, S, H, D // 2, q.stride(1), q.stride(2), cos.stride(0),
                                BLOCK=triton.next_power_of_2(D // 2))
    return out


def reference(q, cos, sin):
    half = q.shape[-1] // 2
    x1, x2 = q[..., :half].float(), q[..., half:].float()
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(q.dtype)


def _inputs(device, B, S, H, D):
    q = torch.randn(B, S, H, D, device=device, dtype=torch.float16)
    angles = torch.outer(torch.arange(S, device=device, dtype=torch.float32),
                         1.0 / (10000.0 ** (torch.arange(0, D, 2, device=device, dtype=torch.float32) / D)))
    return q, angles.cos(), angles.sin()


def make_inputs(device):
    return _inputs(device, 2, 512, 16, 64)


def make_small_inputs(device):
    return _inputs(device, 2, 5, 3, 40)  # 30 rows: the last program's rows run past the grid


TOLERANCE = {"rtol": 1e-3, "atol": 1e-3}
