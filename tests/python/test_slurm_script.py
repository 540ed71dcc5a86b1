"""tools/slurm_bench.sh: valid bash, and the commands it runs for an array task and the merge
(dry runs: TDX_DRY_RUN=1 prints the command). No Slurm is needed."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tools", "slurm_bench.sh")


def dry(env, *args):
    full = dict(os.environ, TDX_DRY_RUN="1", TRITONDX="/opt/tritondx", **env)
    return subprocess.run(["bash", SCRIPT, *args], env=full, capture_output=True, text=True)


def test_script_parses():
    assert subprocess.run(["bash", "-n", SCRIPT]).returncode == 0


def test_array_task_runs_its_shard(tmp_path):
    r = dry({"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8", "TDX_RESULTS": str(tmp_path)},
            "--max-candidates", "8")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["/opt/tritondx", "bench", "--shard", "3/8", "--gpu", "on", "--out",
                                f"{tmp_path}/shards/3", "--max-candidates", "8"]


def test_without_an_array_task_it_says_how_to_run():
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    r = subprocess.run(["bash", SCRIPT], env=dict(env, TDX_DRY_RUN="1"), capture_output=True, text=True)
    assert r.returncode != 0 and "sbatch --array" in r.stderr


def test_merge_takes_every_shard(tmp_path):
    for i in (1, 2):
        (tmp_path / "shards" / str(i)).mkdir(parents=True)
    r = dry({"TDX_RESULTS": str(tmp_path)}, "--merge")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["/opt/tritondx", "bench", "--merge", f"{tmp_path}/shards/1", f"{tmp_path}/shards/2",
                                "--out", str(tmp_path)]
