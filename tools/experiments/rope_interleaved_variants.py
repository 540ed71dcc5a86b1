"""Interleaved (GPT-J) RoPE on the suite's shape [8, 4096, 32, 128] bf16: the suite's first draft
against hand-written forms of the split-interleaved-pairs and rows-per-program rewrites, to decide
which form the recipes should write. Run on a GPU: python3 tools/experiments/rope_interleaved_variants.py
Prints one line per variant: median ms (triton.testing.do_bench, 100 ms warm-up, 500 ms runs),
and max |error| against the suite's reference."""
import importlib.util
import pathlib
import sys

import torch
import triton
import triton.language as tl

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("entry", ROOT / "bench/suite/rotary/rotary_embedding_interleaved.py")
entry = importlib.util.module_from_spec(spec)
spec.loader.exec_module(entry)


@triton.jit
def pairs_row(q_ptr, cos_ptr, sin_ptr, out_ptr, S, H, half, stride_qb, stride_qs, stride_qh,
              stride_ob, stride_os, stride_oh, stride_cs, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    h = pid % H
    s = (pid // H) % S
    b = pid // (H * S)
    offs = tl.arange(0, BLOCK)
    mask = offs < half
    offs_pairs = tl.arange(0, 2 * BLOCK)
    q_row = q_ptr + b * stride_qb + s * stride_qs + h * stride_qh
    out_row = out_ptr + b * stride_ob + s * stride_os + h * stride_oh
    q_pairs = tl.reshape(tl.load(q_row + offs_pairs, mask=offs_pairs < 2 * half, other=0.0), (BLOCK, 2))
    q_even, q_odd = tl.split(q_pairs)
    x0 = q_even.to(tl.float32)
    x1 = q_odd.to(tl.float32)
    cos = tl.load(cos_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)
    sin = tl.load(sin_ptr + s * stride_cs + offs, mask=mask, other=0.0).to(tl.float32)
    o0 = x0 * cos - x1 * sin
    o1 = x1 * cos + x0 * sin
    tl.store(out_row + offs_pairs, tl.reshape(tl.join(o0.to(out_ptr.dtype.element_ty), o1.to(out_ptr.dtype.element_ty)),
                                              (2 * BLOCK,)), mask=offs_pairs < 2 * half)


@triton.jit
def pairs_tiled(q_ptr, cos_ptr, sin_ptr, out_ptr, S, H, half, stride_qb, stride_qs, stride_qh,
                stride_ob, stride_os, stride_oh, stride_cs, n_grid_rows, BLOCK: tl.constexpr, TILE_ROWS: tl.constexpr):
    pid = tl.program_id(0) * TILE_ROWS + tl.arange(0, TILE_ROWS)[:, None]
    h = pid % H
    s = (pid // H) % S
    b = pid // (H * S)
    offs = tl.arange(0, BLOCK)
    mask = offs < half
    offs_pairs = tl.arange(0, 2 * BLOCK)
    q_row = q_ptr + b * stride_qb + s * stride_qs + h * stride_qh
    out_row = out_ptr + b * stride_ob + s * stride_os + h * stride_oh
    q_pairs = tl.reshape(tl.load(q_row + offs_pairs, mask=(offs_pairs < 2 * half) & (pid < n_grid_rows), other=0.0),
                         (TILE_ROWS, BLOCK, 2))
    q_even, q_odd = tl.split(q_pairs)
    x0 = q_even.to(tl.float32)
    x1 = q_odd.to(tl.float32)
    cos = tl.load(cos_ptr + s * stride_cs + offs, mask=mask & (pid < n_grid_rows), other=0.0).to(tl.float32)
    sin = tl.load(sin_ptr + s * stride_cs + offs, mask=mask & (pid < n_grid_rows), other=0.0).to(tl.float32)
    o0 = x0 * cos - x1 * sin
    o1 = x1 * cos + x0 * sin
    tl.store(out_row + offs_pairs, tl.reshape(tl.join(o0.to(out_ptr.dtype.element_ty), o1.to(out_ptr.dtype.element_ty)),
                                              (TILE_ROWS, 2 * BLOCK)), mask=(offs_pairs < 2 * half) & (pid < n_grid_rows))


@triton.jit
def expand_tiled(q_ptr, cos_ptr, sin_ptr, out_ptr, S, H, half, stride_qb, stride_qs, stride_qh,
                 stride_ob, stride_os, stride_oh, stride_cs, n_grid_rows, BLOCK: tl.constexpr, TILE_ROWS: tl.constexpr):
    pid = tl.program_id(0) * TILE_ROWS + tl.arange(0, TILE_ROWS)[:, None]
    h = pid % H
    s = (pid // H) % S
    b = pid // (H * S)
    offs = tl.arange(0, BLOCK)
    mask = offs < half
    q_row = q_ptr + b * stride_qb + s * stride_qs + h * stride_qh
    out_row = out_ptr + b * stride_ob + s * stride_os + h * stride_oh
    m2 = tl.expand_dims(mask & (pid < n_grid_rows), -1)
    q_pairs = tl.load(tl.expand_dims(q_row + 2 * offs, -1) + tl.arange(0, 2), mask=m2, other=0.0)
    q_even, q_odd = tl.split(q_pairs)
    x0 = q_even.to(tl.float32)
    x1 = q_odd.to(tl.float32)
    cos = tl.load(cos_ptr + s * stride_cs + offs, mask=mask & (pid < n_grid_rows), other=0.0).to(tl.float32)
    sin = tl.load(sin_ptr + s * stride_cs + offs, mask=mask & (pid < n_grid_rows), other=0.0).to(tl.float32)
    o0 = x0 * cos - x1 * sin
    o1 = x1 * cos + x0 * sin
    tl.store(tl.expand_dims(out_row + 2 * offs, -1) + tl.arange(0, 2),
             tl.join(o0.to(out_ptr.dtype.element_ty), o1.to(out_ptr.dtype.element_ty)), mask=m2)


def run(kernel, q, cos, sin, tile=None, **options):
    B, S, H, D = q.shape
    out = torch.empty_like(q)
    rows = B * S * H
    args = [q, cos, sin, out, S, H, D // 2, q.stride(0), q.stride(1), q.stride(2),
            out.stride(0), out.stride(1), out.stride(2), cos.stride(0)]
    if tile:
        kernel[(triton.cdiv(rows, tile),)](*args, rows, BLOCK=triton.next_power_of_2(D // 2), TILE_ROWS=tile, **options)
    else:
        kernel[(rows,)](*args, BLOCK=triton.next_power_of_2(D // 2), **options)
    return out


def main():
    torch.manual_seed(0)
    inputs = entry.make_inputs("cuda")
    small = entry.make_small_inputs("cuda")
    variants = [("suite first draft", lambda q, c, s: entry.launch(q, c, s)),
                ("pairs per row (reshape+split)", lambda q, c, s: run(pairs_row, q, c, s)),
                ("pairs per row, num_warps=1", lambda q, c, s: run(pairs_row, q, c, s, num_warps=1))]
    for tile in (8, 16, 32):
        variants.append((f"pairs tiled T={tile}", lambda q, c, s, t=tile: run(pairs_tiled, q, c, s, t)))
    variants.append(("expand_dims tiled T=16", lambda q, c, s: run(expand_tiled, q, c, s, 16)))
    rows = []
    for name, f in variants:
        err = max((f(*x).float() - entry.reference(*x).float()).abs().max().item() for x in (small, inputs))
        ms = triton.testing.do_bench(lambda: f(*inputs), warmup=100, rep=500, return_mode="median")
        rows.append((name, ms, err))
        print(f"{name:34s} {ms:8.4f} ms  max|err| {err:.3g}", flush=True)
    print(f"card: {torch.cuda.get_device_name()}", file=sys.stderr)


if __name__ == "__main__":
    main()
