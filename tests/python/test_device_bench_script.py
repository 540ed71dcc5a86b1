"""tools/device_bench.sh: with TDX_CALL_SECONDS (the device call's limit) the bench is cut in time
for the archive to be written, however long the build took. Run in a scratch tree whose build
script, ceilings script and tritondx binary are stand-ins: the build takes 2 s, the bench would
take 100 s."""
import os
import shutil
import subprocess
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scratch_tree(tmp_path):
    tree = tmp_path / "tree"
    (tree / "tools").mkdir(parents=True)
    (tree / "bench").mkdir()
    (tree / "build-dev").mkdir()
    (tree / "targets").mkdir()
    shutil.copy(os.path.join(ROOT, "tools", "device_bench.sh"), tree / "tools")
    (tree / "tools" / "device_build.sh").write_text("sleep 2\necho built\n")
    (tree / "bench" / "ceilings.py").write_text("")
    binary = tree / "build-dev" / "tritondx"
    # The stand-in bench writes a finished entry at once, then runs on.
    binary.write_text('#!/bin/sh\nmkdir -p "$TDX_BENCH_OUT/entries/e"\necho "{}" > "$TDX_BENCH_OUT/entries/e/entry.json"\n'
                      "echo '[1/2] a/e: initial 1 ms'\nsleep 100\n")
    binary.chmod(0o755)
    return tree


def run_script(tree, out, env):
    full = dict(os.environ, OUT=str(out), TDX_BENCH_OUT="results/run", **env)
    return subprocess.run(["bash", "tools/device_bench.sh", "--suite", "bench/corpus"], cwd=tree, env=full,
                          capture_output=True, text=True, timeout=90)


def test_the_call_limit_caps_the_bench_and_the_archive_is_written(tmp_path):
    tree, out = scratch_tree(tmp_path), tmp_path / "out"
    out.mkdir()
    r = run_script(tree, out, {"TDX_BENCH_SECONDS": "400", "TDX_CALL_SECONDS": "26"})
    assert r.returncode == 0, r.stdout + r.stderr
    # 26 s less the 2 s build and the 20 s kept for the archive.
    assert "bench capped at 4 s: the call's limit is 26 s" in r.stdout or "bench capped at 3 s" in r.stdout, r.stdout
    assert "bench exit 124" in r.stdout
    with tarfile.open(out / "bench.tgz") as t:
        assert "results/run/entries/e/entry.json" in t.getnames()


def test_without_a_call_limit_the_bench_seconds_hold(tmp_path):
    tree, out = scratch_tree(tmp_path), tmp_path / "out"
    out.mkdir()
    r = run_script(tree, out, {"TDX_BENCH_SECONDS": "3"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "capped" not in r.stdout and "bench exit 124" in r.stdout
    assert (out / "bench.tgz").exists()


def test_a_call_limit_the_build_used_up_stops_before_the_bench(tmp_path):
    tree, out = scratch_tree(tmp_path), tmp_path / "out"
    out.mkdir()
    r = run_script(tree, out, {"TDX_CALL_SECONDS": "15"})
    assert r.returncode == 1 and "no time left for the bench in this call" in r.stdout, r.stdout + r.stderr
