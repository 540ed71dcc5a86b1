"""tritondx: why a Triton kernel is slow, from its source down to the compiler, and rewrites that
make it faster, verified and measured.

The functions run the tritondx engine (the `tritondx` command installed with this package) and
return its JSON reports as objects; the JSON stays available as `.raw`. Every failure raises
TritondxError with the engine's exit status, its kind and the message the command prints.

    import tritondx
    d = tritondx.diagnose("examples/softmax.py")
    for f in d.kernels[0].findings:
        print(f.level, f.rule, f.line, f.symptom)
"""
from __future__ import annotations

import json
import os
import pathlib
import tempfile
from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

from tritondx import _engine
from tritondx._capture import CaptureResult, capture

__all__ = ["TritondxError", "Evidence", "Proposal", "Finding", "KernelDiagnosis", "Diagnosis", "Candidate",
           "Optimization", "CaptureResult", "inspect", "diagnose", "optimize", "bench", "capture"]

PathLike = Union[str, os.PathLike]

# The engine's exit statuses (README.md, `tritondx --help`).
_KINDS = {1: "failed", 2: "usage", 3: "internal"}


class TritondxError(RuntimeError):
    """A tritondx command that did not succeed: `status` is its exit status (1 the job failed, 2 a
    usage error, 3 an internal error), `kind` the same in words, `message` what it printed."""

    def __init__(self, status: int, message: str, command: Sequence[str]):
        self.status = status
        self.kind = _KINDS.get(status, "failed")
        self.message = message.strip()
        self.command = list(command)
        super().__init__(f"tritondx {' '.join(self.command)}: {self.kind} (exit {status}): {self.message}")


@dataclass(frozen=True)
class Evidence:
    stage: str  # source, ttir, ttgir, llvm, ptx, sass, pass-dump, remark, what-if, ncu, ...
    line: int
    quote: str
    note: str

    @staticmethod
    def from_json(j: dict) -> "Evidence":
        return Evidence(j.get("stage", ""), (j.get("loc") or {}).get("line", 0), j.get("quote", ""), j.get("note", ""))


@dataclass(frozen=True)
class Proposal:
    recipe: str  # a built-in recipe id; "" for advice only an LLM (or a person) can act on
    description: str
    params: dict

    @staticmethod
    def from_json(j: dict) -> "Proposal":
        return Proposal(j.get("recipe", ""), j.get("description", ""), j.get("params") or {})


@dataclass(frozen=True)
class Finding:
    rule: str
    level: str  # L0 .. L3
    kernel: str
    line: int
    symptom: str
    cause: str
    confidence: float
    estimated_gain: Optional[float]
    evidence: tuple
    proposals: tuple

    @staticmethod
    def from_json(j: dict) -> "Finding":
        return Finding(j.get("rule", ""), j.get("level", ""), j.get("kernel", ""), (j.get("loc") or {}).get("line", 0),
                       j.get("symptom", ""), j.get("cause", ""), j.get("confidence", 0.0), j.get("estimated_gain"),
                       tuple(Evidence.from_json(e) for e in j.get("evidence", [])),
                       tuple(Proposal.from_json(p) for p in j.get("proposals", [])))


@dataclass(frozen=True)
class KernelDiagnosis:
    name: str
    findings: tuple
    static_cost: Optional[dict]


@dataclass(frozen=True)
class Diagnosis:
    task: str
    target: str
    reached: str  # the highest level the ladder climbed to
    stop_reason: str
    kernels: tuple
    compile_error: Optional[dict]
    raw: dict = field(repr=False)

    @staticmethod
    def from_json(j: dict) -> "Diagnosis":
        kernels = tuple(KernelDiagnosis(k.get("name", ""), tuple(Finding.from_json(f) for f in k.get("findings", [])),
                                        k.get("static_cost")) for k in j.get("kernels", []))
        return Diagnosis(j.get("task", ""), j.get("target", ""), j.get("reached", ""), j.get("stop_reason", ""),
                         kernels, j.get("compile_error"), j)


@dataclass(frozen=True)
class Candidate:
    id: int
    parent: Optional[int]
    recipe: str
    status: str
    median_ms: Optional[float]  # None when not measured (no GPU)
    description: str
    diff: str
    path: str


@dataclass(frozen=True)
class Optimization:
    task: str
    gpu: bool
    speedup: Optional[float]  # measured, best over the original; None without a GPU
    best: Candidate
    best_source: str  # the optimized task file
    candidates: tuple
    out_dir: str
    raw: dict = field(repr=False)

    @staticmethod
    def from_json(j: dict) -> "Optimization":
        def candidate(c: dict) -> Candidate:
            score = c.get("score") or {}
            return Candidate(c.get("id", 0), c.get("parent"), c.get("recipe", ""), c.get("status", ""),
                             score.get("median_ms") if score.get("measured") else None, c.get("description", ""),
                             c.get("diff", ""), c.get("path", ""))
        candidates = tuple(candidate(c) for c in j.get("candidates", []))
        best = next(c for c in candidates if c.id == j.get("best"))
        return Optimization(j.get("task", ""), bool(j.get("gpu")), j.get("speedup"), best,
                            pathlib.Path(best.path).read_text() if best.path else "", candidates,
                            j.get("out_dir", ""), j)


def _run(args: Sequence[str]) -> str:
    done = _engine.run(list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise TritondxError(done.returncode, done.stderr or done.stdout, args)
    return done.stdout


def _task(task: PathLike) -> str:
    return str(pathlib.Path(task).resolve())


def inspect(task: PathLike, *, kernel: Optional[str] = None, target: Optional[str] = None) -> dict:
    """Compile a task for sm_90 and return what every stage made of it (docs/inspect-schema.md)."""
    args = ["inspect", _task(task), "--format", "json"]
    if kernel:
        args += ["--kernel", kernel]
    if target:
        args += ["--target", target]
    return json.loads(_run(args))


def diagnose(task: PathLike, *, levels: Optional[int] = None, all_levels: bool = False, what_if: bool = True,
             profile: bool = False, recording: Optional[PathLike] = None, kernel: Optional[str] = None,
             target: Optional[str] = None) -> Diagnosis:
    """Run the diagnosis ladder on a task: `levels` is the highest level to climb to (0-3),
    `profile` measures and profiles on a GPU (L1), `recording` uses L1 data recorded on one."""
    args = ["diagnose", _task(task), "--format", "json"]
    if levels is not None:
        args += ["--max-level", str(levels)]
    if all_levels:
        args.append("--all-levels")
    if not what_if:
        args.append("--no-what-if")
    if profile:
        args.append("--profile")
    if recording:
        args += ["--recording", str(recording)]
    if kernel:
        args += ["--kernel", kernel]
    if target:
        args += ["--target", target]
    return Diagnosis.from_json(json.loads(_run(args)))


def optimize(task: PathLike, *, gpu: str = "auto", max_candidates: Optional[int] = None,
             max_seconds: Optional[float] = None, out: Optional[PathLike] = None, resume: bool = False,
             llm: bool = False, tune: bool = True) -> Optimization:
    """Rewrite the kernel from its diagnosis, verify each candidate, keep the best. `gpu`: auto,
    on or off (off: candidates are compiled and re-diagnosed, not run). Writes the optimized task
    and the reports into `out` (default <task dir>/<task stem>.tritondx/)."""
    args = ["optimize", _task(task), "--gpu", gpu, "--format", "json", "--quiet"]
    if max_candidates is not None:
        args += ["--max-candidates", str(max_candidates)]
    if max_seconds is not None:
        args += ["--max-seconds", str(max_seconds)]
    if out is not None:
        args += ["--out", str(out)]
    if resume:
        args.append("--resume")
    if llm:
        args.append("--llm")
    if not tune:
        args.append("--no-tune")
    return Optimization.from_json(json.loads(_run(args)))


def bench(suite: PathLike, *, entries: Sequence[str] = (), out: Optional[PathLike] = None, gpu: str = "auto",
          max_candidates: Optional[int] = None, max_seconds: Optional[float] = None) -> dict:
    """Run a benchmark suite (a folder of task files, e.g. bench/corpus) and return its summary
    (summary.json: geomeans, targets, and each entry's times)."""
    out_dir = pathlib.Path(out) if out is not None else pathlib.Path(tempfile.mkdtemp(prefix="tritondx-bench-"))
    args = ["bench", "--suite", str(pathlib.Path(suite).resolve()), "--out", str(out_dir), "--gpu", gpu, *entries]
    if max_candidates is not None:
        args += ["--max-candidates", str(max_candidates)]
    if max_seconds is not None:
        args += ["--max-seconds", str(max_seconds)]
    _run(args)
    return json.loads((out_dir / "summary.json").read_text())
