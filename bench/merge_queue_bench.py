#!/usr/bin/env python3
"""Merge queue benchmark (docs/benchmarks.md, "The merge queue").

A fresh repository and data directory; a workflow of ENTRIES (20) parallel steps,
each writing its own file in its own worktree with merge: queue, run to its end
with no daemon, so that ENTRIES reported workers wait in the queue; the queue is
verified with `--verify true`. Then one `orrery drive-queue` drains it (what the
daemon starts). The time from the first entry taken to the last merged, read from
the worker events (reported -> verifying -> merge_ready -> merged), divided by
ENTRIES, is the cost of one merge: a scratch worktree at the tip, the rebase,
the verification, the fast-forward of the (clean) checkout, the worktree and branch
removed, and the store's transitions.

The floor, in the same run, interleaved: for ENTRIES branches of one commit each,
the bare git a merge needs: `git worktree add --detach` at the tip, `git rebase`
of the branch onto it there, `true`, `git merge --ff-only` in the checkout, `git
worktree remove`. The ratio is orrery's time per merge / the floor's. Medians of
REPEATS (default 3).

Usage: bench/merge_queue_bench.py BUILD/orrery [REPEATS] [--entries N]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from datetime import datetime


def sh(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {result.stderr}")
    return result.stdout


def new_repo(path):
    sh(["git", "init", "--quiet", "-b", "main", path])
    sh(["git", "-C", path, "config", "user.name", "Bench"])
    sh(["git", "-C", path, "config", "user.email", "bench@example.com"])
    with open(os.path.join(path, "README"), "w") as readme:
        readme.write("bench\n")
    sh(["git", "-C", path, "add", "README"])
    sh(["git", "-C", path, "commit", "--quiet", "-m", "first"])


def when(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def orrery_round(binary, work, entries):
    """Seconds per merge, from the worker events."""
    repo = os.path.join(work, "repo")
    home = os.path.join(work, "home")
    new_repo(repo)
    steps = "".join(
        f"  - id: s{i}\n    target: {{type: command, shell: true, command: 'echo {i} > f{i}.txt'}}\n"
        f"    worktree: required\n    repo: {repo}\n    merge: queue\n" for i in range(entries))
    spec = os.path.join(work, "bench.yaml")
    with open(spec, "w") as out:
        out.write("name: bench\nsteps:\n" + steps)
    run = [binary, "--home", home]
    sh(run + ["workflow", "create", spec])
    sh(run + ["queue", "config", repo, "--verify", "true"])
    sh(run + ["workflow", "run", "bench", "--wait", "--max-parallel", "8"])
    read_end, write_end = os.pipe()
    os.close(write_end)
    subprocess.run(run + ["drive-queue", repo, "--target", "main", "--token-fd", str(read_end)],
                   check=True, pass_fds=(read_end,), capture_output=True)
    os.close(read_end)
    queue = json.loads(sh(run + ["--json", "queue", "ls"]))
    assert len(queue) == entries and all(e["state"] == "merged" for e in queue), queue
    taken, merged = [], []
    for entry in queue:
        worker = json.loads(sh(run + ["--json", "worker", "show", entry["worker_id"]]))
        for event in worker["events"]:
            if event["to_state"] == "verifying":
                taken.append(when(event["created_at"]))
            if event["to_state"] == "merged":
                merged.append(when(event["created_at"]))
    return (max(merged) - min(taken)) / entries


def floor_round(work, entries):
    """Seconds per merge of the bare git steps."""
    repo = os.path.join(work, "floor")
    new_repo(repo)
    for i in range(entries):
        branch_dir = os.path.join(work, f"b{i}")
        sh(["git", "-C", repo, "worktree", "add", "--quiet", "-b", f"b{i}", branch_dir, "main"])
        with open(os.path.join(branch_dir, f"f{i}.txt"), "w") as out:
            out.write(f"{i}\n")
        sh(["git", "-C", branch_dir, "add", "-A"])
        sh(["git", "-C", branch_dir, "commit", "--quiet", "-m", f"change {i}"])
        sh(["git", "-C", repo, "worktree", "remove", "--force", branch_dir])
    start = time.monotonic()
    for i in range(entries):
        scratch = os.path.join(work, f"scratch{i}")
        sh(["git", "-C", repo, "worktree", "add", "--quiet", "--detach", scratch, "main"])
        sh(["git", "-C", scratch, "checkout", "--quiet", "--detach", f"b{i}"])
        sh(["git", "-C", scratch, "rebase", "--quiet", "main"])
        head = sh(["git", "-C", scratch, "rev-parse", "HEAD"]).strip()
        sh(["true"])
        sh(["git", "-C", repo, "merge", "--quiet", "--ff-only", head])
        sh(["git", "-C", repo, "worktree", "remove", "--force", scratch])
    return (time.monotonic() - start) / entries


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("repeats", nargs="?", type=int, default=3)
    parser.add_argument("--entries", type=int, default=20)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    ours, floors = [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as work:
            floors.append(floor_round(work, args.entries))
        with tempfile.TemporaryDirectory() as work:
            ours.append(orrery_round(binary, work, args.entries))
    ours_ms = statistics.median(ours) * 1000
    floor_ms = statistics.median(floors) * 1000
    print(f"entries {args.entries}, repeats {args.repeats}")
    print(f"orrery: reported -> merged per entry  {ours_ms:8.1f} ms (median; runs "
          + ", ".join(f"{x * 1000:.1f}" for x in ours) + ")")
    print(f"floor:  bare git per entry             {floor_ms:8.1f} ms (median; runs "
          + ", ".join(f"{x * 1000:.1f}" for x in floors) + ")")
    print(f"ratio   {ours_ms / floor_ms:.2f}")


if __name__ == "__main__":
    main()
