# SPDX-License-Identifier: MIT
# A pre-norm transformer block trained with torch.compile: every fused elementwise and reduction
# kernel of its forward and backward is one Inductor generates in Triton.
# `tritondx capture -- python examples/capture/compiled_block.py` captures them.
import argparse

import torch
import torch.nn.functional as F


class Block(torch.nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.up = torch.nn.Linear(dim, 4 * dim)
        self.down = torch.nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.out(a.transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.norm2(x)), approximate="tanh"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--dim", type=int, default=1024)
    args = parser.parse_args()
    torch.manual_seed(0)
    block = Block(args.dim, args.dim // 64).to("cuda")
    step = torch.compile(block)
    opt = torch.optim.SGD(block.parameters(), lr=1e-3)
    for i in range(args.steps):
        x = torch.randn(args.batch, args.seq, args.dim, device="cuda")
        loss = step(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        print("step", i, float(loss))


if __name__ == "__main__":
    main()
