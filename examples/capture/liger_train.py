# SPDX-License-Identifier: MIT
# A language-model training step built from Liger-Kernel's layers, as a user's training script
# would use them (liger-kernel installed from PyPI; none of its code is copied here): RMSNorm, a
# SwiGLU MLP and the fused linear cross entropy's sibling, the plain fused cross entropy, forward
# and backward. `tritondx capture -- python examples/capture/liger_train.py` captures its kernels.
import argparse

import torch
from liger_kernel.transformers.cross_entropy import LigerCrossEntropyLoss
from liger_kernel.transformers.rms_norm import LigerRMSNorm
from liger_kernel.transformers.swiglu import LigerSiLUMulFunction


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--vocab", type=int, default=32000)
    args = parser.parse_args()
    torch.manual_seed(0)
    dtype = torch.bfloat16
    inter = 4 * args.hidden
    norm = LigerRMSNorm(args.hidden).to("cuda", dtype)
    up = torch.nn.Linear(args.hidden, 2 * inter, device="cuda", dtype=dtype)
    down = torch.nn.Linear(inter, args.hidden, device="cuda", dtype=dtype)
    head = torch.nn.Linear(args.hidden, args.vocab, device="cuda", dtype=dtype)
    for step in range(args.steps):
        x = torch.randn(args.tokens, args.hidden, device="cuda", dtype=dtype, requires_grad=True)
        g, u = up(norm(x)).chunk(2, dim=-1)
        y = down(LigerSiLUMulFunction.apply(g.contiguous(), u.contiguous()))
        logits = head(y)
        labels = torch.randint(0, args.vocab, (args.tokens,), device="cuda")
        labels[::7] = -100  # ignored positions, as padding would be
        loss = LigerCrossEntropyLoss()(logits, labels)
        loss.backward()
        print("step", step, float(loss))


if __name__ == "__main__":
    main()
