"""The tritondx Python API on the examples, without a GPU: diagnose a kernel, read the evidence
behind a finding, try the rewrites its findings propose, and handle a failure.

    python examples/api.py      (after `pip install .`, or with PYTHONPATH=python in a checkout)
"""
import pathlib
import tempfile

import tritondx

HERE = pathlib.Path(__file__).resolve().parent

# 1. Why is the softmax slow? The L0 rules read the source; --all-levels would add the IR and
#    compiler evidence.
diagnosis = tritondx.diagnose(HERE / "softmax.py", levels=0)
kernel = diagnosis.kernels[0]
print(f"{kernel.name}: {len(kernel.findings)} findings (ladder reached {diagnosis.reached})")
for f in kernel.findings:
    print(f"  {f.level} {f.rule} line {f.line}: {f.symptom}")

# 2. One finding's chain: evidence, cause, and the rewrites it proposes.
finding = next(f for f in kernel.findings if f.proposals)
print(f"\n{finding.rule}: {finding.cause}")
for e in finding.evidence:
    print(f"  [{e.stage}] line {e.line}: {e.note}")
for p in finding.proposals:
    print(f"  proposes {p.recipe or 'advice'}: {p.description}")

# 3. Rewrite it. Without a GPU the candidates are compiled and re-diagnosed, not timed.
result = tritondx.optimize(HERE / "softmax.py", gpu="off", max_candidates=3, out=tempfile.mkdtemp())
print(f"\n{len(result.candidates) - 1} candidates; best: candidate {result.best.id} ({result.best.recipe or 'original'})")
print(result.best.diff or "(the original kernel was kept)")

# 4. Failures raise TritondxError with the command's exit status.
try:
    tritondx.diagnose(HERE / "no_such_task.py")
except tritondx.TritondxError as e:
    print(f"\nexpected failure: exit {e.status} ({e.kind}): {e.message.splitlines()[0]}")
