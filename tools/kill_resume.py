"""Kills `tritondx optimize` with SIGKILL at random moments and resumes it after each kill, then
checks what `OptimizeE2E.KillsAtRandomPointsLoseOnlyTheCandidateInFlight` checks on the CPU, for
any task and with the GPU on (issue 28: a kill during a GPU evaluation): the store is sound, every
candidate of the finished run is finished, no source was evaluated twice, whatever was finished
before a kill was kept as it was, and each kill cost at most the candidate in flight.
Writes one JSON object to --report (and prints it).
Usage: python3 tools/kill_resume.py --binary build-dev/tritondx --task examples/softmax.py \
           --gpu on --kills 4 --delays 3,25 --max-candidates 4 --out DIR --report kill.json
"""
import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

UNFINISHED = ("proposed", "evaluating")


def finished_candidates(db):
    """Finished candidates: id -> (status, restarts so far), read-only (the optimizer may be
    running). A candidate restarted while in flight and finished later keeps that count; only a
    count that grows after it finished is a finished candidate evaluated again."""
    if not os.path.exists(db):
        return {}
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2) as d:
            return {i: (s, r) for i, s, r in d.execute("SELECT id, status, restarts FROM candidates ORDER BY id")
                    if s not in UNFINISHED}
    except sqlite3.Error:
        return {}


def optimize_args(a, resume):
    args = [a.binary, "optimize", a.task, "--gpu", a.gpu, "--max-candidates", str(a.max_candidates), "--out", a.out]
    return args + ["--resume"] if resume else args


def check_run(a, kills, finished_before_a_kill):
    """The failed checks (empty when the run is sound) and what the store holds."""
    failures = []
    report = json.load(open(os.path.join(a.out, "report.json")))
    with sqlite3.connect(os.path.join(a.out, "store.sqlite")) as d:
        integrity = d.execute("PRAGMA integrity_check").fetchone()[0]
        rows = d.execute("SELECT id, status, restarts, source_sha256 FROM candidates WHERE run_id = ? ORDER BY id",
                         (report["run_id"],)).fetchall()
    if integrity != "ok":
        failures.append(f"integrity_check: {integrity}")
    candidates = {i: {"status": s, "restarts": r, "sha": h} for i, s, r, h in rows}
    if len({c["sha"] for c in candidates.values()}) != len(candidates):
        failures.append("the same source was evaluated twice")
    for i, c in candidates.items():
        if c["status"] in UNFINISHED:
            failures.append(f"candidate {i} is left {c['status']}")
    restarts = sum(c["restarts"] for c in candidates.values())
    if restarts > kills:
        failures.append(f"{restarts} restarts after {kills} kills: a kill cost more than the candidate in flight")
    for i, (status, restarts) in finished_before_a_kill.items():
        if i not in candidates:
            failures.append(f"candidate {i} ({status}) finished before a kill and is gone")
        elif candidates[i]["restarts"] != restarts:
            failures.append(f"candidate {i} finished before a kill, then was evaluated again")
    return failures, {"run_id": report["run_id"], "resumed": report.get("resumed"), "candidates": len(candidates),
                      "restarts": restarts, "speedup": report.get("speedup"),
                      "statuses": sorted({c["status"] for c in candidates.values()})}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", default="build/tritondx")
    p.add_argument("--task", default="examples/softmax.py")
    p.add_argument("--gpu", default="off")
    p.add_argument("--kills", type=int, default=4)
    p.add_argument("--delays", default="0.3,9", help="kill after a uniform delay in [lo,hi] seconds")
    p.add_argument("--seed", type=int, default=20261206)
    p.add_argument("--max-candidates", type=int, default=3)
    p.add_argument("--out", required=True)
    p.add_argument("--report", required=True)
    a = p.parse_args()
    lo, hi = (float(x) for x in a.delays.split(","))
    rng = random.Random(a.seed)
    db = os.path.join(a.out, "store.sqlite")
    segments, finished_before_a_kill, kills, completed = [], {}, 0, False
    start = time.monotonic()
    for _ in range(a.kills):
        delay = rng.uniform(lo, hi)
        proc = subprocess.Popen(optimize_args(a, bool(finished_candidates(db))), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            code = proc.wait(timeout=delay)
            segments.append({"delay_s": round(delay, 2), "ended": code})
            if code != 0:
                sys.exit(f"a segment ended on its own with status {code}")
            completed = True
            break
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        kills += 1
        for i, held in finished_candidates(db).items():
            finished_before_a_kill.setdefault(i, held)
        segments.append({"delay_s": round(delay, 2), "killed": True, "finished_so_far": len(finished_before_a_kill)})
        print(f"kill {kills} after {delay:.2f} s: {len(finished_before_a_kill)} candidate(s) finished so far", flush=True)
    if not completed:
        done = subprocess.run(optimize_args(a, bool(finished_candidates(db))), capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"the final resume failed with status {done.returncode}: {done.stderr[-800:]}")
    failures, held = check_run(a, kills, finished_before_a_kill)
    result = {"task": a.task, "gpu": a.gpu, "seed": a.seed, "kills": kills, "segments": segments,
              "seconds": round(time.monotonic() - start, 1), "passed": not failures and kills > 0,
              "failures": failures if kills else failures + ["every segment ended before its kill"], **held}
    with open(a.report, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result))
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
