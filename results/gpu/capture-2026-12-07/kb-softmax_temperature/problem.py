# SPDX-License-Identifier: MIT
# A KernelBench-format problem (class Model, get_inputs, get_init_inputs): a masked softmax with a
# temperature, as attention scores or sampling logits get it.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, scores, mask):
        scores = scores.masked_fill(~mask, float("-inf")) / self.temperature
        return torch.softmax(scores, dim=-1)


def get_inputs():
    scores = torch.randn(4096, 4096)
    mask = torch.rand(4096, 4096) > 0.1
    mask[:, 0] = True  # no row fully masked
    return [scores, mask]


def get_init_inputs():
    return [0.7]
