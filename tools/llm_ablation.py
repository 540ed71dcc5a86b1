#!/usr/bin/env python3
"""The evidence ablation of the LLM rewriter (issue 27; docs/llm.md): the same kernels and model,
prompted with (a) the full diagnosis, (b) only the measured kernel-level symptoms, (c) none.

    # here, against a live endpoint (scripts/local-llm.sh start; eval "$(scripts/local-llm.sh env)"):
    python3 tools/llm_ablation.py run --out results/llm-ablation/DATE \\
        examples/softmax.py=tests/fixtures/recordings/softmax bench/suite/reduction/row_sum.py=REC ...
    # on the GPU machine (the model cannot go there): every candidate that passed the CPU checks,
    # verified against its task's reference and timed against the original, interleaved
    python3 tools/llm_ablation.py verify --out results/llm-ablation/DATE --tritondx build-dev/tritondx
    # the tables (summary.json, summary.md), from whatever the two steps have written
    python3 tools/llm_ablation.py summarize --out results/llm-ablation/DATE

`run` is `tritondx optimize TASK --gpu off --llm --no-recipes --llm-evidence ARM` per kernel and
arm (TASK=DIR gives the kernel's GPU recording, so its L1 findings and symptoms are measured
ones). Each (kernel, arm) writes WORK/KERNEL/ARM/ (--work, outside the repository: stores and
compile artifacts) and is skipped when its report.json exists, so a cut run resumes. The out
folder gets what is kept: calls.jsonl (every call with its reply and its candidate's diff against
the task), the sources of the candidates that passed the CPU checks (candidates/KERNEL/ARM/, what
`verify` times), gpu.json from `verify`, and the summary. Every LLM call is read back from the
run's store: latency, tokens, status, the raw reply, and what became of it (no code, not
spliced, compile error, integrity violation, or a candidate whose re-diagnosis says whether the
targeted finding is gone).
"""
import argparse
import json
import math
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import verify_shapes  # tools/, beside this file

ARMS = ("full", "symptom", "none")
ROOT = Path(__file__).resolve().parent.parent


def kernel_name(task: Path) -> str:
    parts = task.with_suffix("").parts
    return "__".join(parts[-2:]) if "suite" in parts or "corpus" in parts else parts[-1]


# ---------------------------------------------------------------- run (CPU, live endpoint)

def run_one(tritondx: str, task: Path, recording: str | None, arm: str, out: Path, args) -> dict:
    cmd = [tritondx, "optimize", str(task), "--gpu", "off", "--llm", "--no-recipes", "--llm-evidence", arm,
           "--llm-attempts", str(args.attempts), "--max-candidates", str(args.max_candidates), "--max-depth", str(args.max_depth),
           "--max-seconds", str(args.max_seconds), "--out", str(out), "-q"]
    if recording:
        cmd += ["--recording", recording]
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    (out / "optimize.log").write_text(" ".join(cmd) + "\n\n" + proc.stdout + proc.stderr)
    return {"exit": proc.returncode, "seconds": round(time.time() - started, 1), "command": cmd}


def cmd_run(args) -> int:
    for var in ("TRITONDX_LLM_BASE_URL", "TRITONDX_LLM_MODEL"):
        if not os.environ.get(var):
            sys.exit(f"llm_ablation: {var} is not set (scripts/local-llm.sh start prints the settings)")
    for spec in args.tasks:
        task, _, recording = spec.partition("=")
        task_path = Path(task)
        if not task_path.exists():
            sys.exit(f"llm_ablation: no task file {task}")
        if recording and not Path(recording, "run.json").exists():
            sys.exit(f"llm_ablation: {recording} is not a GPU recording (no run.json)")
        for arm in args.arms.split(","):
            run_dir = Path(args.work) / kernel_name(task_path) / arm
            if (run_dir / "report.json").exists():
                interpret_candidates(run_dir)
                print(f"{kernel_name(task_path)} {arm}: kept from an earlier run", flush=True)
                continue
            run_dir.mkdir(parents=True, exist_ok=True)
            meta = run_one(args.tritondx, task_path, recording or None, arm, run_dir, args)
            meta.update({"task": task, "recording": recording or None, "arm": arm,
                         "model": os.environ["TRITONDX_LLM_MODEL"],
                         "temperature": os.environ.get("TRITONDX_LLM_TEMPERATURE")})
            (run_dir / "run-meta.json").write_text(json.dumps(meta, indent=1) + "\n")
            if not (run_dir / "report.json").exists():  # kept out of the tables; the next run retries it
                log = (run_dir / "optimize.log").read_text().strip().splitlines()
                print(f"{kernel_name(task_path)} {arm}: optimize failed (exit {meta['exit']}): "
                      f"{log[-1] if log else 'no output'}", file=sys.stderr, flush=True)
                continue
            interpret_candidates(run_dir)
            calls = read_calls(run_dir)
            print(f"{kernel_name(task_path)} {arm}: exit {meta['exit']}, {meta['seconds']} s, "
                  f"{len(calls)} calls: {', '.join(c['outcome'] for c in calls) or '-'}", flush=True)
    return cmd_summarize(args)


def interpret_candidates(run_dir: Path) -> None:
    """Each candidate that passed the CPU checks, verified against its task's reference at the
    task's test inputs under Triton's CPU interpreter (the bridge's verify verb, device cpu, no
    make_inputs draw): correctness without a GPU. Written to interpreter.json, by candidate id."""
    path = run_dir / "interpreter.json"
    done = json.loads(path.read_text()) if path.exists() else {}
    report = json.loads((run_dir / "report.json").read_text())
    for node in report.get("candidates", []):
        if node.get("rewriter") != "llm" or node.get("reject") or str(node["id"]) in done:
            continue
        r = verify_shapes.verify(node["path"], "cpu", timeout=660, draws=0)
        if "error" in r:
            done[str(node["id"])] = {"correct": False, "checked": 0, "why": r["error"][:300]}
        else:
            done[str(node["id"])] = {"correct": bool(r["passed"]) and r["test_inputs_checked"] > 0,
                                     "checked": r["test_inputs_checked"], "why": "; ".join(r["failures"][:2]) or None}
        path.write_text(json.dumps(done, indent=1) + "\n")


# ---------------------------------------------------------------- reading a run back

def read_calls(run_dir: Path) -> list[dict]:
    """One record per LLM request (its retries folded in), with what became of its reply."""
    report_path = run_dir / "report.json"
    if not report_path.exists():
        return []
    report = json.loads(report_path.read_text())
    nodes = {c["id"]: c for c in report.get("candidates", [])}
    # Replies that made no candidate, in the order the search met them. The report lists an
    # attempt once per finding it targeted, in the findings' order: a reply's entries end where
    # the first targeted rule comes round again (or the parent changes).
    groups: list[list[dict]] = []
    for a in report.get("attempts", []):
        if a.get("rewriter") != "llm" or a.get("outcome") == "evaluated":
            continue
        current = groups[-1] if groups else None
        if (current is None or a.get("parent") != current[0].get("parent") or
                (a.get("rule") == current[0].get("rule") and len(current) > 0 and a is not current[0])):
            groups.append([a])
        else:
            current.append(a)
    unbuilt = [g[0] for g in groups]
    interpreted = json.loads((run_dir / "interpreter.json").read_text()) if (run_dir / "interpreter.json").exists() else {}
    db = sqlite3.connect(f"file:{report['store']}?mode=ro", uri=True)
    rows = db.execute("SELECT id, candidate_id, attempt, status, prompt_tokens, completion_tokens, latency_s, "
                      "request, reply, error FROM llm_calls WHERE run_id = ? ORDER BY id", (report["run_id"],)).fetchall()
    db.close()
    requests: list[list[tuple]] = []
    for row in rows:
        if row[2] == 1 or not requests:
            requests.append([])
        requests[-1].append(row)
    calls = []
    for tries in requests:
        last = tries[-1]
        _, candidate_id, _, status, prompt_tokens, completion_tokens, _, request, reply, error = last
        body = json.loads(request) if request else {}
        body = json.loads(body) if isinstance(body, str) else body  # stored as the body's JSON text
        call = {"status": status, "tries": len(tries), "latency_s": round(sum(t[6] or 0 for t in tries), 2),
                "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "error": error,
                "prompt_chars": sum(len(m.get("content", "")) for m in body.get("messages", []))}
        body = None
        try:
            body = json.loads(reply) if reply else None
        except json.JSONDecodeError:
            pass
        if isinstance(body, dict) and body.get("choices"):
            choice = body["choices"][0]
            call["finish_reason"] = choice.get("finish_reason")
            call["reply"] = (choice.get("message") or {}).get("content")
        else:
            call["reply"] = reply
        if status != "ok":
            call["outcome"] = status  # truncated (cut at max_tokens), timeout, http-error, ...
            if candidate_id is None and unbuilt:
                unbuilt.pop(0)  # the search recorded the failed call as a declined attempt
        elif candidate_id is not None and candidate_id in nodes:
            node = nodes[candidate_id]
            call["candidate"] = candidate_id
            call["candidate_path"] = node.get("path")
            call["diff"] = node.get("diff")
            stage = (node.get("reject") or {}).get("stage")
            call["reject"] = node.get("reject")
            call["outcome"] = {"compile": "compile-error", "integrity": "integrity-violation"}.get(stage, stage or "candidate")
            if str(candidate_id) in interpreted:
                call["interpreter"] = interpreted[str(candidate_id)]
            gone = node.get("target_gone")
            call["target_gone"] = gone.get("gone") if gone else None
            call["target_note"] = gone.get("note") if gone else None
        else:
            attempt = unbuilt.pop(0) if unbuilt else {}
            call["reason"] = attempt.get("reason")
            call["outcome"] = "duplicate" if attempt.get("outcome") == "duplicate" else reply_failure(call["reason"] or "")
        calls.append(call)
    return calls


# Why a reply made no candidate, from the rewriter's reason (docs/llm.md, "From reply to candidate").
REPLY_FAILURES = [("returned the same kernel", "duplicate"), ("no code block", "no-code"),
                  ("no Python code block", "no-code"), ("not valid Python", "syntax-error"),
                  ("fails when imported", "import-error"), ("not a kernel", "not-a-kernel"),
                  ("does not load as a task", "load-error"), ("budget", "budget")]


def reply_failure(reason: str) -> str:
    return next((name for text, name in REPLY_FAILURES if text in reason), "splice-rejected")


def repo_path(path: Path) -> str:
    """Relative to the repository when inside it (the GPU machine's copy has another root)."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def cmd_summarize(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gpu = json.loads((out / "gpu.json").read_text()) if (out / "gpu.json").exists() else {}
    gpu_by_path = {c["candidate_path"]: c for c in gpu.get("candidates", [])}
    kernels, per_arm, all_calls = set(), {arm: [] for arm in ARMS}, []
    model = None
    for meta_path in sorted(Path(args.work).glob("*/*/run-meta.json")):
        if not (meta_path.parent / "report.json").exists():
            continue  # a failed run (its error was printed when it ran)
        meta = json.loads(meta_path.read_text())
        model = model or meta.get("model")
        kernel = meta_path.parent.parent.name
        kernels.add(kernel)
        for i, call in enumerate(read_calls(meta_path.parent)):
            call.update({"kernel": kernel, "arm": meta["arm"], "call": i + 1})
            # The original is the task itself (the search's frozen copy has the same text). The
            # candidates the GPU machine verifies travel in the repository; the others are their
            # diffs in calls.jsonl.
            call["original_path"] = repo_path(Path(meta["task"]))
            if call["outcome"] == "candidate" and Path(call["candidate_path"]).exists():
                kept = out / "candidates" / kernel / meta["arm"] / Path(call["candidate_path"]).name
                kept.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(call["candidate_path"], kept)
                call["candidate_path"] = repo_path(kept)
                call["gpu"] = gpu_by_path.get(call["candidate_path"])
            else:
                call.pop("candidate_path", None)
            if call.get("gpu") is None:
                call.pop("gpu", None)
            per_arm.setdefault(meta["arm"], []).append(call)
            all_calls.append(call)
    with open(out / "calls.jsonl", "w") as f:
        for c in all_calls:
            f.write(json.dumps(c) + "\n")
    rows = []
    for arm, calls in per_arm.items():
        if not calls:
            continue
        ok = [c for c in calls if c["status"] == "ok"]
        built = [c for c in ok if "candidate" in c]
        compiled = [c for c in built if c["outcome"] != "compile-error"]
        honest = [c for c in compiled if c["outcome"] != "integrity-violation"]
        gone = [c for c in honest if c.get("target_gone")]
        cpu_correct = [c for c in honest if c.get("interpreter", {}).get("correct")]
        verified = [c for c in honest if c.get("gpu", {}).get("correct")]
        faster = [c for c in verified if (c["gpu"].get("speedup") or 0) > 1.0]
        # Per kernel, what the search would keep: its best verified candidate, else the original.
        best = {}
        for c in verified:
            best[c["kernel"]] = max(best.get(c["kernel"], 1.0), c["gpu"]["speedup"] or 1.0)
        arm_kernels = sorted({c["kernel"] for c in calls})
        gpu_ran = bool(gpu) and any("gpu" in c or not c.get("candidate") for c in calls)
        rows.append({
            "arm": arm, "kernels": len(arm_kernels), "calls": len(calls), "replies": len(ok),
            "candidates": len(built), "compiled": len(compiled), "integrity_passed": len(honest),
            "target_gone": len(gone), "correct_interpreter": len(cpu_correct),
            "verified": len(verified) if gpu_ran else None, "faster": len(faster) if gpu_ran else None,
            "speedup_geomean": geomean([best.get(k, 1.0) for k in arm_kernels]) if gpu_ran else None,
            "best_speedup": max(best.values()) if best else None,
            "latency_median_s": statistics.median([c["latency_s"] for c in calls]),
            "prompt_tokens_median": statistics.median([c["prompt_tokens"] or 0 for c in ok]) if ok else None,
            "completion_tokens_median": statistics.median([c["completion_tokens"] or 0 for c in ok]) if ok else None,
            "outcomes": {o: sum(1 for c in calls if c["outcome"] == o) for o in sorted({c["outcome"] for c in calls})},
        })
    summary = {"model": model, "kernels": sorted(kernels), "arms": rows, "gpu": gpu.get("device")}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / "summary.md").write_text(render_markdown(summary, all_calls))
    print((out / "summary.md").read_text())
    return 0


def pct(n, d) -> str:
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "-"


def render_markdown(summary: dict, calls: list[dict]) -> str:
    md = [f"# LLM evidence ablation: {summary['model'] or '(no run finished)'}", "",
          f"Kernels ({len(summary['kernels'])}): {', '.join(summary['kernels'])}.",
          f"GPU verification: {summary['gpu'] or 'not run'}.", "",
          "| arm | calls | replies | code spliced | compiled | integrity passed | target gone | correct (CPU interpreter) | "
          "verified on GPU | faster | speedup geomean (best kept per kernel) | median latency s | median tokens in/out |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary["arms"]:
        n = r["calls"]
        gpu_cols = ([pct(r["verified"], n), pct(r["faster"], n), f"{r['speedup_geomean']:.2f}x"]
                    if r["verified"] is not None else ["not run"] * 3)
        md.append(f"| {r['arm']} | {n} | {pct(r['replies'], n)} | {pct(r['candidates'], n)} | {pct(r['compiled'], n)} | "
                  f"{pct(r['integrity_passed'], n)} | {pct(r['target_gone'], n)} | {pct(r['correct_interpreter'], n)} | " +
                  " | ".join(gpu_cols) +
                  f" | {r['latency_median_s']:.0f} | {r['prompt_tokens_median']}/{r['completion_tokens_median']} |")
    md += ["", "Rates are over the calls of the arm. Outcomes per arm: " +
           "; ".join(f"{r['arm']}: " + ", ".join(f"{k} {v}" for k, v in r["outcomes"].items()) for r in summary["arms"]),
           "", "## Calls", "",
           "| kernel | arm | call | outcome | target gone | interpreter | GPU | latency s | tokens in/out | why |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for c in sorted(calls, key=lambda c: (c["kernel"], ARMS.index(c["arm"]) if c["arm"] in ARMS else 9, c["call"])):
        why = c.get("reason") or (c.get("reject") or {}).get("reason") or c.get("error") or ""
        why = why.replace("|", "\\|").replace("\n", " ")[:160]
        g = c.get("gpu")
        gpu_text = "-" if not g else (f"correct, {g['speedup']:.2f}x" if g.get("correct") and g.get("speedup")
                                      else ("correct" if g.get("correct") else "wrong: " + (g.get("why") or "")[:60]))
        gone = {True: "yes", False: "no", None: "-"}[c.get("target_gone")]
        i = c.get("interpreter")
        interp = "-" if not i else ("correct" if i["correct"] else
                                    ("wrong: " if i.get("checked") else "not verified: ") + (i.get("why") or "")[:60])
        interp = interp.replace("|", "\\|").replace("\n", " ")
        md.append(f"| {c['kernel']} | {c['arm']} | {c['call']} | {c['outcome']} | {gone} | {interp} | {gpu_text} | "
                  f"{c['latency_s']:.0f} | {c.get('prompt_tokens')}/{c.get('completion_tokens')} | {why} |")
    return "\n".join(md) + "\n"


# ---------------------------------------------------------------- regression fixtures

SPLICED = ("candidate", "compile-error", "integrity-violation")


def fixture_of(call: dict, task: str, kernel: str) -> dict | None:
    """A reply as tests/rewrite/test_llm_replies.cpp reads it, expecting what became of it: a
    candidate holding the reply's first new line, or a rejection whose reason starts as it did."""
    reply = call.get("reply")
    if not isinstance(reply, str) or call["status"] != "ok":
        return None
    fixture = {"about": f"{call['kernel']}, arm {call['arm']}, call {call['call']}: {call['outcome']}",
               "task": task, "kernel": kernel, "model": call.get("model"), "reply": reply}
    if call["outcome"] in SPLICED:
        original = set(line.strip() for line in Path(ROOT / call["original_path"]).read_text().splitlines())
        added = [line[1:].strip() for line in call["diff"].splitlines() if line.startswith("+") and not line.startswith("+++")]
        new = [line for line in added if line and line not in original and not line.startswith("#")]
        fixture["expect"] = {"code_contains": new[:1]}
    elif call.get("reason"):
        fixture["expect"] = {"rejected": call["reason"].split(":")[0]}
    else:
        return None
    return fixture


def cmd_fixtures(args) -> int:
    out, to = Path(args.out), Path(args.to)
    to.mkdir(parents=True, exist_ok=True)
    metas = {p.parent.parent.name + "/" + p.parent.name: json.loads(p.read_text())
             for p in Path(args.work).glob("*/*/run-meta.json")}
    written = 0
    for line in (out / "calls.jsonl").read_text().splitlines():
        call = json.loads(line)
        meta = metas.get(f"{call['kernel']}/{call['arm']}")
        if not meta or (args.outcomes and call["outcome"] not in args.outcomes.split(",")):
            continue
        source = Path(meta["task"]).read_text()
        kernel = args.kernel or re.search(r"@triton\.jit[^\n]*\n(?:@[^\n]*\n)*def (\w+)", source).group(1)
        call["model"] = meta.get("model")
        fixture = fixture_of(call, str(Path(meta["task"]).resolve().relative_to(ROOT)), kernel)
        if fixture:
            name = f"{call['kernel']}-{call['arm']}-{call['call']}.json"
            (to / name).write_text(json.dumps(fixture, indent=1) + "\n")
            written += 1
    print(f"{written} fixtures in {to}")
    return 0


# ---------------------------------------------------------------- verify (on the GPU machine)

def cmd_verify(args) -> int:
    out = Path(args.out)
    gpu_path = out / "gpu.json"
    done = json.loads(gpu_path.read_text()) if gpu_path.exists() else {"candidates": []}
    seen = {c["candidate_path"] for c in done["candidates"]}
    todo = []
    for line in (out / "calls.jsonl").read_text().splitlines():
        c = json.loads(line)
        if c.get("candidate_path") and c["outcome"] == "candidate" and c["candidate_path"] not in seen:
            todo.append(c)
    # The interpreter's correct ones first (their speedups are the ablation's), then the others.
    todo.sort(key=lambda c: not (c.get("interpreter") or {}).get("correct"))
    import torch  # the GPU machine's
    done["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    if not done["device"]:
        sys.exit("llm_ablation verify: no GPU visible")
    for c in todo:
        cand = ROOT / c["candidate_path"]
        original = ROOT / c["original_path"]  # the task: the initial kernel
        rec = {"candidate_path": c["candidate_path"], "kernel": c["kernel"], "arm": c["arm"]}
        proc = subprocess.run([args.tritondx, "run", str(cand), "--format", "json"], capture_output=True, text=True,
                              timeout=args.timeout)
        try:
            report = json.loads(proc.stdout)
            m = report.get("measurement") or {}
            rec["correct"] = bool(m.get("correct")) and bool(m.get("recheck_passed", True))
            rec["why"] = "; ".join(f.get("message", "") for f in m.get("failures", [])) or None
        except json.JSONDecodeError:
            rec["correct"] = False
            rec["why"] = (proc.stderr.strip().splitlines() or ["no report"])[-1][:300]
        if rec["correct"]:
            req = {"tasks": [str(original), str(cand)], "rounds": args.rounds}
            cmp = subprocess.run([sys.executable, "-m", "tritondx_bridge", "compare"], input=json.dumps(req),
                                 capture_output=True, text=True, timeout=args.timeout,
                                 env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
            try:
                reply = json.loads(cmp.stdout)
                if not reply.get("ok"):
                    raise KeyError(reply.get("error", {}).get("message", "compare failed"))
                tasks = reply["tasks"]
                ratios = [a / b for a, b in zip(tasks[0]["round_ms"], tasks[1]["round_ms"])]
                rec["speedup"] = statistics.median(ratios)
                rec["original_ms"] = statistics.median(tasks[0]["round_ms"])
                rec["candidate_ms"] = statistics.median(tasks[1]["round_ms"])
            except (json.JSONDecodeError, KeyError, IndexError, ZeroDivisionError):
                rec["speedup"] = None
                rec["why"] = "compare failed: " + (cmp.stderr.strip().splitlines() or [cmp.stdout[:200]])[-1][:300]
        done["candidates"].append(rec)
        gpu_path.write_text(json.dumps(done, indent=1) + "\n")  # resumable, candidate by candidate
        print(c["kernel"], c["arm"], rec.get("correct"), rec.get("speedup"), rec.get("why") or "", flush=True)
    gpu_path.write_text(json.dumps(done, indent=1) + "\n")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", required=True)
    r = sub.add_parser("run")
    r.add_argument("tasks", nargs="+", help="TASK or TASK=RECORDING_DIR")
    r.add_argument("--arms", default=",".join(ARMS))
    r.add_argument("--attempts", type=int, default=3, help="replies per prompt (optimize --llm-attempts)")
    r.add_argument("--max-candidates", type=int, default=3)
    r.add_argument("--max-depth", type=int, default=1, help="1: every arm gets the same calls, all on the original")
    r.add_argument("--max-seconds", type=float, default=3600)
    v = sub.add_parser("verify")
    v.add_argument("--rounds", type=int, default=5)
    v.add_argument("--timeout", type=float, default=300)
    s = sub.add_parser("summarize")
    f = sub.add_parser("fixtures", help="real replies as regression fixtures (tests/fixtures/llm_replies)")
    f.add_argument("--to", default=str(ROOT / "tests" / "fixtures" / "llm_replies"))
    f.add_argument("--outcomes", default="", help="only calls with these outcomes (comma-separated)")
    f.add_argument("--kernel", default=None)
    for q in (r, s, f):
        q.add_argument("--work", help="where the runs go (default: ~/.cache/tritondx/llm-ablation/<out's name>)")
    for q in (r, v, s, f):
        q.add_argument("--out", required=True)
        q.add_argument("--tritondx", default=str(ROOT / "build" / "tritondx"))
    args = p.parse_args()
    if getattr(args, "work", "missing") is None:
        args.work = str(Path.home() / ".cache" / "tritondx" / "llm-ablation" / Path(args.out).name)
    return {"run": cmd_run, "verify": cmd_verify, "summarize": cmd_summarize, "fixtures": cmd_fixtures}[args.verb](args)


if __name__ == "__main__":
    sys.exit(main())
