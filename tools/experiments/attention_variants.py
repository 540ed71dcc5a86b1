"""Attention forward on the suite's shape (B=4, H=32, S=2048, D=128, fp16), non-causal and causal:
the suite's first drafts and tritondx's current best against hand-written variants, to decide
which rewrites and launch grid the recipes should try. Run on a GPU:
    python3 tools/experiments/attention_variants.py
Times are the bench's own (python/tritondx_bridge/timing.py: CUDA events per call, L2 flushed
before each call, median); max |error| is against the suite's reference. A variant that fails to
compile or disagrees is listed with its reason, not dropped."""
import math
import sys

import torch
import triton
import triton.language as tl

from experiment_util import load, timing


@triton.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, S, stride_b, stride_h, stride_s, H,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
              CAUSAL: tl.constexpr, K_T: tl.constexpr, SPLIT_DIAGONAL: tl.constexpr,
              WARP_SPECIALIZE: tl.constexpr):
    """Q, K, V, O contiguous [B, H, S, D]; S a multiple of both blocks; qk_scale = sm_scale * log2(e)."""
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    base = (pid_bh // H) * stride_b + (pid_bh % H) * stride_h
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :])
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    if CAUSAL:
        if SPLIT_DIAGONAL:
            hi = pid_m * BLOCK_M
        else:
            hi = pid_m * BLOCK_M + BLOCK_M
    else:
        hi = S
    for start_n in tl.range(0, hi, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        cols = start_n + offs_n
        if K_T:
            kt = tl.load(k_ptr + base + cols[None, :] * stride_s + offs_d[:, None])
        else:
            kt = tl.trans(tl.load(k_ptr + base + cols[:, None] * stride_s + offs_d[None, :]))
        qk = tl.dot(q, kt) * qk_scale
        if CAUSAL and not SPLIT_DIAGONAL:
            qk = tl.where(offs_m[:, None] >= cols[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.exp2(qk - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + base + cols[:, None] * stride_s + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_new
    if CAUSAL and SPLIT_DIAGONAL:
        for start_n in tl.range(pid_m * BLOCK_M, pid_m * BLOCK_M + BLOCK_M, BLOCK_N):
            cols = start_n + offs_n
            if K_T:
                kt = tl.load(k_ptr + base + cols[None, :] * stride_s + offs_d[:, None])
            else:
                kt = tl.trans(tl.load(k_ptr + base + cols[:, None] * stride_s + offs_d[None, :]))
            qk = tl.dot(q, kt) * qk_scale
            qk = tl.where(offs_m[:, None] >= cols[None, :], qk, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(qk, axis=1))
            p = tl.exp2(qk - m_new[:, None])
            alpha = tl.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None]
            v = tl.load(v_ptr + base + cols[:, None] * stride_s + offs_d[None, :])
            acc = tl.dot(p.to(tl.float16), v, acc)
            m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], acc.to(tl.float16))


def variant(causal, block_m, block_n, warps, stages, k_t=False, split=False, ws=False, reverse=False):
    def launch(q, k, v):
        B, H, S, D = q.shape
        o = torch.empty_like(q)
        grid = (S // block_m, B * H)
        attention[grid](q, k, v, o, 1.0 / math.sqrt(D) * 1.4426950408889634, S,
                        q.stride(0), q.stride(1), q.stride(2), H,
                        BLOCK_M=block_m, BLOCK_N=block_n, HEAD_DIM=D, CAUSAL=causal, K_T=k_t,
                        SPLIT_DIAGONAL=split, WARP_SPECIALIZE=ws, num_warps=warps, num_stages=stages)
        return o
    flags = "".join(f", {f}" for f, on in (("K loaded transposed", k_t), ("diagonal split", split),
                                            ("warp_specialize", ws)) if on)
    return f"{block_m}x{block_n} w{warps} s{stages}{flags}", launch


def measure(name, launch, entry, small, inputs):
    try:
        err = max((launch(*x).float() - entry.reference(*x).float()).abs().max().item() for x in (small, inputs))
        ok = all(torch.allclose(launch(*x).float(), entry.reference(*x).float(), **entry.TOLERANCE)
                 for x in (small, inputs))
        ms = timing.time_launch(launch, [inputs])["median_ms"]
        return name, ms, err, "" if ok else "DISAGREES"
    except Exception as e:  # noqa: BLE001 - a variant that does not compile is a result too
        return name, float("nan"), float("nan"), f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"


def main():
    torch.manual_seed(0)
    for causal, stem in ((False, "attention_fwd"), (True, "attention_fwd_causal")):
        entry = load(f"bench/suite/attention/{stem}.py", stem)
        best = load(f"bench/results/entries/attention__{stem}/optimize/{stem}.optimized.py", stem + "_best")
        inputs = entry.make_inputs("cuda")
        # The fixed-block variants need S divisible by 128; the suite's small set (S=67) is not.
        small = entry._inputs(1, 2, 256, 128, "cuda")
        rows = [measure("suite first draft", entry.launch, entry, small, inputs),
                measure("tritondx best (bench)", best.launch, entry, small, inputs)]
        grid = [(64, 64, 4, 3), (64, 64, 4, 4), (128, 64, 8, 2), (128, 64, 8, 3), (128, 64, 8, 4),
                (128, 64, 4, 3), (128, 128, 8, 2), (128, 128, 8, 3), (128, 32, 4, 3), (64, 128, 4, 3)]
        for block_m, block_n, warps, stages in grid:
            rows.append(measure(*variant(causal, block_m, block_n, warps, stages), entry, small, inputs))
        for extra in (dict(k_t=True), dict(ws=True)):
            rows.append(measure(*variant(causal, 128, 64, 8, 3, **extra), entry, small, inputs))
            rows.append(measure(*variant(causal, 128, 128, 8, 3, **extra), entry, small, inputs))
        if causal:
            for block_m, block_n, warps, stages in ((128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 3)):
                rows.append(measure(*variant(causal, block_m, block_n, warps, stages, split=True),
                                    entry, small, inputs))
        compiled = torch.compile(entry.torch_baseline)
        rows.append(measure("torch.compile(torch_baseline)", compiled, entry, small, inputs))
        print(f"\n{stem} on {torch.cuda.get_device_name()} (triton {triton.__version__}, torch {torch.__version__})")
        print(f"{'variant':58s} {'ms':>8s} {'max err':>9s}")
        for name, ms, err, note in rows:
            print(f"{name:58s} {ms:8.4f} {err:9.2e} {note}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
