"""tools/llm_ablation.py end to end without a model: a local stand-in that speaks the
chat-completions protocol answers every request with a real rewrite of examples/vector_add.py;
`run` sends it through `tritondx optimize --llm --no-recipes` in two arms, reads every call back
from the stores, verifies the candidates under Triton's CPU interpreter, and `summarize` writes
the table. The arms differ in what the prompts carry, which the stand-in records."""
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRITONDX = ROOT / "build" / "tritondx"

REWRITE = '''Each program now handles 4096 elements instead of 1024.

```python
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 4096),)](x, y, out, n, BLOCK=4096)
    return out
```
'''


class ScriptedChat(BaseHTTPRequestHandler):
    prompts: list = []

    def do_POST(self):  # noqa: N802 - the http.server interface
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ScriptedChat.prompts.append(body["messages"][-1]["content"])
        reply = json.dumps({"id": "x", "object": "chat.completion", "model": body["model"],
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": REWRITE}}],
                            "usage": {"prompt_tokens": 1000, "completion_tokens": 120}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedChat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ScriptedChat.prompts = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_two_arms_through_optimize_into_one_table(tmp_path, endpoint):
    if not TRITONDX.exists():
        pytest.skip("build/tritondx is not built (scripts/setup.sh)")
    out, work = tmp_path / "ablation", tmp_path / "work"
    env = dict(os.environ, TRITONDX_LLM_BASE_URL=endpoint, TRITONDX_LLM_MODEL="scripted",
               TRITONDX_PYTHON=sys.executable, PYTHONPATH=str(ROOT / "python"))
    task = f"{ROOT / 'examples' / 'vector_add.py'}={ROOT / 'tests' / 'fixtures' / 'recordings' / 'vector_add'}"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "llm_ablation.py"), "run", "--out", str(out),
                           "--work", str(work), "--arms", "full,none", "--attempts", "1", task],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr

    # What each arm was told: the full diagnosis, then nothing of it.
    assert len(ScriptedChat.prompts) == 2
    assert "## Diagnosis" in ScriptedChat.prompts[0] and "l1-" in ScriptedChat.prompts[0]
    assert "## Diagnosis" not in ScriptedChat.prompts[1] and "What was measured" not in ScriptedChat.prompts[1]

    calls = [json.loads(line) for line in (out / "calls.jsonl").read_text().splitlines()]
    assert [(c["arm"], c["outcome"]) for c in calls] == [("full", "candidate"), ("none", "candidate")]
    for c in calls:
        assert c["status"] == "ok" and c["prompt_tokens"] == 1000 and c["completion_tokens"] == 120
        assert c["reply"] == REWRITE
        assert c["interpreter"]["correct"] and c["interpreter"]["checked"] == 3  # make_test_inputs' sizes
        kept = ROOT / c["candidate_path"]
        assert kept.is_file() and str(out) in str(kept) and "BLOCK=4096" in kept.read_text()
        assert (ROOT / c["original_path"]).read_text() == (ROOT / "examples" / "vector_add.py").read_text()

    summary = json.loads((out / "summary.json").read_text())
    assert summary["model"] == "scripted"
    arms = {r["arm"]: r for r in summary["arms"]}
    assert set(arms) == {"full", "none"}
    for r in arms.values():
        assert (r["calls"], r["candidates"], r["compiled"], r["integrity_passed"], r["correct_interpreter"]) == (1, 1, 1, 1, 1)
        assert r["verified"] is None  # no GPU verification yet: "not run", never a number
    table = (out / "summary.md").read_text()
    assert "| full | 1 | 1/1 (100%) |" in table and "not run" in table

    # A second run resumes: nothing is asked again.
    again = subprocess.run([sys.executable, str(ROOT / "tools" / "llm_ablation.py"), "run", "--out", str(out),
                            "--work", str(work), "--arms", "full,none", task],
                           capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0 and again.stdout.count("kept from an earlier run") == 2
    assert len(ScriptedChat.prompts) == 2


def test_a_task_optimize_refuses_is_named_and_the_others_still_run(tmp_path, endpoint):
    if not TRITONDX.exists():
        pytest.skip("build/tritondx is not built (scripts/setup.sh)")
    out, work = tmp_path / "ablation", tmp_path / "work"
    env = dict(os.environ, TRITONDX_LLM_BASE_URL=endpoint, TRITONDX_LLM_MODEL="scripted",
               TRITONDX_PYTHON=sys.executable, PYTHONPATH=str(ROOT / "python"))
    bad = ROOT / "tests" / "fixtures" / "bad_tasks" / "syntax_error.py"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "llm_ablation.py"), "run", "--out", str(out),
                           "--work", str(work), "--arms", "none", "--attempts", "1", str(bad),
                           str(ROOT / "examples" / "vector_add.py")],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "syntax_error none: optimize failed (exit" in done.stderr
    calls = [json.loads(line) for line in (out / "calls.jsonl").read_text().splitlines()]
    assert [(c["kernel"], c["outcome"]) for c in calls] == [("vector_add", "candidate")]
