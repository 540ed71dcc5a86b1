"""split-interleaved-pairs applies: GPT-J (interleaved) RoPE, one program per head row; the even and
odd elements are loaded and stored through stride-2 pointers, the pair rows not a power of two."""
import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(q_ptr, cos_ptr, sin_ptr, out_ptr, S, H, half, stride_qs, stride_qh, stride_cs,
                BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    h = pid % H
    s = pid // H
    offs = tl.arange(0, BLOCK)
    mask = offs < half
    q_row = q_ptr + s * stride_qs + h * stride_qh
    out_row = out_ptr + s * stride_qs + h * stride_qh
    x0 = tl.load(q_row + 2 * offs, mask=mask, other=0.0).to(tl.float32)
    x1 = tl.load(q_row + 2 * offs + 1, mask=mask, other=0.0).to(tl.float32)
    cos = tl.load(cos_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)
    sin = tl.load(sin_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)
    o0 = x0 * cos - x1 * sin
    o1 = x1 * cos + x0 * sin
    tl.store(out_row + 2 * offs, o0.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_row + 2 * offs + 1, o1.to(out_ptr.dtype.element_ty), mask=mask)


def launch(q, cos, sin):
    S, H, D = q.shape
    out = torch.empty_like(q)
    rope_kernel[(S * H,)](q, cos, sin, out, S, H, D // 2, q.stride(0), q.stride(1), cos.stride(0),
                          BLOCK=triton.next_power_of_2(D // 2))
    return out


def reference(q, cos, sin):
    x0, x1 = q[..., 0::2].float(), q[..., 1::2].float()
    c, s = cos.float()[:, None, :], sin.float()[:, None, :]
    return torch.stack([x0 * c - x1 * s, x1 * c + x0 * s], dim=-1).flatten(-2).to(q.dtype)


def _inputs(S, H, D, device):
    angles = torch.rand(S, D // 2, device=device)
    return (torch.randn(S, H, D, device=device, dtype=torch.float16), angles.cos().half(), angles.sin().half())


def make_inputs(device):
    return _inputs(256, 8, 96, device)


def make_small_inputs(device):
    return _inputs(5, 3, 40, device)


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
