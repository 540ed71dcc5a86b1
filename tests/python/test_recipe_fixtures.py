"""Recipe fixtures (tests/recipes/<id>/applies*.py) that declare make_small_inputs run under
Triton's interpreter, before and after the rewrite (<stem>.expected.py), and must both match their
reference: the C++ fixture test checks the rewrite's text, compile and IR; this checks what it
computes."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from test_bench_suite import CHECK

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for p in (ROOT / "tests" / "recipes").glob("*/applies*.py")
                  if "def make_small_inputs" in p.read_text())


def test_some_fixture_is_checked():
    assert any(p.name.endswith(".expected.py") for p in FIXTURES)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_matches_reference_under_interpreter(path):
    env = dict(os.environ, TRITON_INTERPRET="1")
    r = subprocess.run([sys.executable, "-c", CHECK, str(path), str(ROOT / "python")], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    result = json.loads(r.stdout.strip().splitlines()[-1])
    assert not result["problems"], result["problems"]
