"""One bridge process in `serve` mode, as the C++ side runs it, shared by a test module.
`extra_env` is added to its environment."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class BridgeServer:
    """`interpret`: the process starts with TRITON_INTERPRET=1, so the `verify` verb on "cpu" runs
    in it rather than in a child process of its own (one interpreter start for a whole module)."""

    def __init__(self, interpret=False, extra_env=None):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), PYTHONUNBUFFERED="1", **(extra_env or {}))
        env.pop("TRITON_INTERPRET", None)
        if interpret:
            env["TRITON_INTERPRET"] = "1"
        self.proc = subprocess.Popen([sys.executable, "-m", "tritondx_bridge", "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def call(self, verb, request):
        self.proc.stdin.write(json.dumps({"verb": verb, "request": request}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the bridge exited during {verb}"
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
