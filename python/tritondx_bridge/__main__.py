"""Entry point: python -m tritondx_bridge <verb> < request.json > reply.json"""
import json
import os
import sys
import traceback

from .errors import BridgeError


def _verbs():
    from . import source_ast, compile as compile_verb, capture_verb, task
    return {
        "load": task.load_verb,
        "capture": capture_verb.capture_verb,
        "ast": source_ast.ast_verb,
        "compile": compile_verb.compile_verb,
    }


def main(argv):
    # Everything Triton, PyTorch or the task prints goes to stderr; stdout carries
    # only the reply.
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    verbs = _verbs()
    if len(argv) != 2 or argv[1] not in verbs:
        reply = {"ok": False, "error": BridgeError(
            "bad-request", f"usage: python -m tritondx_bridge <{'|'.join(sorted(verbs))}>").to_json()}
    else:
        try:
            request = json.loads(sys.stdin.read() or "{}")
            reply = {"ok": True, **verbs[argv[1]](request)}
        except BridgeError as e:
            reply = {"ok": False, "error": e.to_json()}
        except json.JSONDecodeError as e:
            reply = {"ok": False, "error": BridgeError("bad-request", f"request is not JSON: {e}").to_json()}
        except Exception as e:  # noqa: BLE001 - every failure must reach the C++ side
            reply = {"ok": False, "error": BridgeError(
                "internal", f"{type(e).__name__}: {e}", detail=traceback.format_exc()).to_json()}
    with os.fdopen(reply_fd, "w") as out:
        json.dump(reply, out)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
