"""The bridge's output comparisons on dtypes torch implements few operations for (fp8)."""
import os
import sys
import types

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from tritondx_bridge.verify import compare, same_values  # noqa: E402

FP8 = torch.float8_e4m3fn


def test_same_values_decodes_fp8():
    a = torch.tensor([1.0, -2.5, 448.0, float("nan")]).to(FP8)
    assert same_values(a, a.clone())
    b = a.clone()
    b[1] = -3.0
    assert not same_values(a, b)


def test_same_values_keeps_nan_matching_nan_for_wider_floats():
    a = torch.tensor([1.0, float("nan")], dtype=torch.float16)
    assert same_values(a, a.clone())
    assert not same_values(a, torch.tensor([1.0, 2.0], dtype=torch.float16))


def test_compare_judges_fp8_outputs_after_decoding():
    task = types.SimpleNamespace(module=types.SimpleNamespace(TOLERANCE={"rtol": 0.125, "atol": 2.0 ** -9}))
    ref = torch.tensor([1.0, 2.0, 3.0, 400.0]).to(FP8)
    assert compare(task, ref.clone(), ref, 0) is None
    off = torch.tensor([1.0, 2.0, 3.0, 256.0]).to(FP8)
    failure = compare(task, off, ref, 0)
    assert failure["bad_elements"] == 1 and failure["worst_index"] == [3]
