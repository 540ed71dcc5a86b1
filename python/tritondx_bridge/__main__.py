"""Entry point: python -m tritondx_bridge <verb> < request.json > reply.json"""
import json
import os
import sys
import traceback

from . import gpu_lock
from .errors import BridgeError


def _verbs():
    from . import source_ast, compile as compile_verb, capture_verb, task

    def run(request):
        from . import run_verb
        return run_verb.run_verb(request)

    def profile(request):
        from . import profile_verb
        return profile_verb.profile_verb(request)

    def baselines(request):
        from . import baselines_verb
        return baselines_verb.baselines_verb(request)

    def compare(request):
        from . import compare_verb
        return compare_verb.compare_verb(request)

    def device(request):
        from . import device_verb
        return device_verb.device_verb(request)

    def verify(request):
        from . import verify_verb
        return verify_verb.verify_verb(request)

    def sweep(request):
        from . import sweep_verb
        return sweep_verb.sweep_verb(request)

    return {
        "run": run,
        "sweep": sweep,
        "verify": verify,
        "device": device,
        "compare": compare,
        "baselines": baselines,
        "profile": profile,
        "load": task.load_verb,
        "capture": capture_verb.capture_verb,
        "ast": source_ast.ast_verb,
        "compile": compile_verb.compile_verb,
    }


def handle(verbs, verb, request):
    """One request -> one reply dict; never raises. With TRITONDX_GPU_LOCK set, the reply says
    how long the call waited for the shared GPU (gpu_lock_wait_s)."""
    waited = gpu_lock.waited_seconds()
    reply = _handle(verbs, verb, request)
    if os.environ.get(gpu_lock.ENV):
        reply["gpu_lock_wait_s"] = gpu_lock.waited_seconds() - waited
    return reply


def _handle(verbs, verb, request):
    if verb not in verbs:
        return {"ok": False, "error": BridgeError(
            "bad-request", f"unknown verb {verb!r}; verbs: {', '.join(sorted(verbs))}").to_json()}
    try:
        return {"ok": True, **verbs[verb](request)}
    except BridgeError as e:
        return {"ok": False, "error": e.to_json()}
    except Exception as e:  # noqa: BLE001 - every failure must reach the C++ side
        return {"ok": False, "error": BridgeError(
            "internal", f"{type(e).__name__}: {e}", detail=traceback.format_exc()).to_json()}


def serve(verbs, reply_file):
    """Persistent mode: one JSON request per stdin line ({"verb", "request"}), one JSON reply
    per stdout line. Saves the Python, torch and Triton start-up on every call after the first."""
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            reply = handle(verbs, message.get("verb"), message.get("request") or {})
        except json.JSONDecodeError as e:
            reply = {"ok": False, "error": BridgeError("bad-request", f"request is not JSON: {e}").to_json()}
        reply_file.write(json.dumps(reply) + "\n")
        reply_file.flush()


def main(argv):
    # Everything Triton, PyTorch or the task prints goes to stderr; stdout carries
    # only the reply.
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    verbs = _verbs()
    with os.fdopen(reply_fd, "w") as out:
        if len(argv) == 2 and argv[1] == "serve":
            serve(verbs, out)
            return 0
        if len(argv) != 2:
            reply = {"ok": False, "error": BridgeError(
                "bad-request", f"usage: python -m tritondx_bridge <{'|'.join(sorted(verbs))}|serve>").to_json()}
        else:
            try:
                request = json.loads(sys.stdin.read() or "{}")
                reply = handle(verbs, argv[1], request)
            except json.JSONDecodeError as e:
                reply = {"ok": False, "error": BridgeError("bad-request", f"request is not JSON: {e}").to_json()}
        json.dump(reply, out)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
