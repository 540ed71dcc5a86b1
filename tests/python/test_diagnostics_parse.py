"""The bridge reads Triton's MLIR diagnostics from stderr: each remark with its location, and
each note after it ("operand defined here") attached to it with the note's own location.

parse_diagnostics runs in a bridge process of its own: importing the bridge's compile module
patches Triton's runtime for the capture, which would leak into the interpreter tests that share
this test worker."""
import json
import os
import subprocess
import sys
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"


def parse_diagnostics(text):
    code = ("import json, sys\nfrom tritondx_bridge.compile import parse_diagnostics\n"
            "print(json.dumps(parse_diagnostics(sys.stdin.read())))")
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    done = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, env=env,
                          check=True, timeout=300)
    return json.loads(done.stdout)


def test_a_note_keeps_its_location():
    text = ("/tmp/t.py:30:9: warning: operation scheduled before its operands. Pipelining will be disabled.\n"
            "/tmp/t.py:24:13: note: operand defined here\n"
            "/tmp/t.py:41:5: remark: Warning: vectorization fails vec = 1 origin vec = 4 numElems = 4 mask is 1\n")
    out = parse_diagnostics(text)
    assert [d["line"] for d in out] == [30, 41]
    assert out[0]["severity"] == "warning"
    assert out[0]["notes"] == [{"file": "/tmp/t.py", "line": 24, "col": 13, "message": "operand defined here"}]
    assert "notes" not in out[1]


def test_a_note_before_any_remark_is_a_diagnostic_of_its_own():
    out = parse_diagnostics("/tmp/t.py:3:1: note: alone\n")
    assert out == [{"file": "/tmp/t.py", "line": 3, "col": 1, "severity": "note", "message": "alone"}]
