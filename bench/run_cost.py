#!/usr/bin/env python3
"""The cost of one run of a loop against its floor (docs/benchmarks.md, "The cost of one run").

  cpu     LOOPS loops of `true` every second (default 100, `--overlap allow`) under
          `orrery daemon` for WINDOW seconds. This script makes itself the subreaper
          of everything the daemon starts, so the user and system CPU of the daemon,
          its fork server, every supervisor and every target are all reaped here
          (wait4) and summed; divided by the runs recorded, it is the CPU of one run.
          Floor: `true` started with posix_spawn one after another, the same number
          of times: the target's own CPU, and the target's with the spawner's.
  counts  the same daemon under `strace -f` for COUNT_WINDOW seconds with 10 loops:
          the processes (fork, vfork, clone without CLONE_THREAD), execs, fsyncs and
          write transactions (SQLite's WAL write lock taken) per run, after the
          counts of the same daemon with no loop due over the same window.

Each figure is the median of REPEAT rounds (default 3), every round in a fresh data
directory.

Usage: bench/run_cost.py BUILD/orrery [--loops N] [--window S] [--repeat N] [--out FILE]
"""
import argparse
import ctypes
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_bench import Home, now_ms  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36


def set_subreaper(on):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


class Reaper(threading.Thread):
    """Reaps every child (the daemon and every orphan reparented here) and sums its CPU."""

    def __init__(self):
        super().__init__(daemon=True)
        self.user = 0.0
        self.system = 0.0
        self.reaped = 0

    def run(self):
        while True:
            try:
                _, _, usage = os.wait4(-1, 0)
            except ChildProcessError:
                return
            self.user += usage.ru_utime
            self.system += usage.ru_stime
            self.reaped += 1


def spawn_daemon(home, log_path):
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    argv = [home.binary, "--home", home.home, "daemon"]
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                                       (os.POSIX_SPAWN_DUP2, log, 1),
                                       (os.POSIX_SPAWN_DUP2, log, 2)])
    os.close(log)
    return pid


def wait_for_log(path, text, limit=60):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with open(path, errors="replace") as log:
            if text in log.read():
                return
        time.sleep(0.05)
    raise RuntimeError(f"the daemon did not log {text!r} within {limit} s")


def cpu_round(binary, loops, window):
    with tempfile.TemporaryDirectory(prefix="orrery-bench-") as tmp:
        home = Home(binary, tmp)
        first = home.add("bulk-0", "--every", "1s", "--overlap", "allow", "--", "true")
        start = now_ms() + 3000
        home.copy_loop(first["id"], loops - 1, start, max(1, 1000 // loops))
        log_path = os.path.join(tmp, "daemon.log")
        # From here on nothing but the reaper waits for a child.
        set_subreaper(True)
        reaper = Reaper()
        pid = spawn_daemon(home, log_path)
        reaper.start()
        wait_for_log(log_path, "ready: running loops")
        time.sleep(max(0, (start - now_ms()) / 1000) + window)
        os.kill(pid, signal.SIGTERM)
        reaper.join(timeout=120)
        if reaper.is_alive():
            raise RuntimeError("processes were still running 120 s after the daemon was stopped")
        set_subreaper(False)
        runs = home.query("SELECT count(*) FROM runs WHERE finished_at IS NOT NULL")[0][0]
        failed = home.query("SELECT count(*) FROM runs WHERE status != 'succeeded'")[0][0]
    # Floor: the same number of `true`s, posix_spawn'd one after another.
    true = "/bin/true"
    floor_runs = max(runs, 1)
    self_before = resource.getrusage(resource.RUSAGE_SELF)
    target_cpu = 0.0
    for _ in range(floor_runs):
        child = os.posix_spawn(true, [true], os.environ)
        _, _, usage = os.wait4(child, 0)
        target_cpu += usage.ru_utime + usage.ru_stime
    self_after = resource.getrusage(resource.RUSAGE_SELF)
    spawner_cpu = (self_after.ru_utime - self_before.ru_utime +
                   self_after.ru_stime - self_before.ru_stime)
    total = reaper.user + reaper.system
    return {
        "runs": runs,
        "not_succeeded": failed,
        "processes_reaped": reaper.reaped,
        "per_run_ms": 1000 * total / floor_runs,
        "per_run_user_ms": 1000 * reaper.user / floor_runs,
        "per_run_system_ms": 1000 * reaper.system / floor_runs,
        "floor_target_ms": 1000 * target_cpu / floor_runs,
        "floor_spawn_ms": 1000 * (target_cpu + spawner_cpu) / floor_runs,
    }


CLONE_THREAD = 0x10000
SYSCALL = re.compile(r"^(?:\d+\s+)?(\w+)\((.*)")


def strace_counts(trace_dir):
    counts = {"processes": 0, "execs": 0, "fsyncs": 0, "write_transactions": 0}
    for name in os.listdir(trace_dir):
        with open(os.path.join(trace_dir, name), errors="replace") as trace:
            for line in trace:
                found = SYSCALL.match(line)
                if not found or "resumed>" in line:
                    continue
                call, args = found.groups()
                if call in ("fork", "vfork"):
                    counts["processes"] += 1
                elif call in ("clone", "clone3") and "CLONE_THREAD" not in args:
                    counts["processes"] += 1
                elif call == "execve":
                    counts["execs"] += 1
                elif call in ("fsync", "fdatasync"):
                    counts["fsyncs"] += 1
                elif call == "fcntl" and "F_WRLCK" in args and "l_start=120," in args:
                    # SQLite's WAL write lock (byte 120 of the -shm file): one per
                    # write transaction.
                    counts["write_transactions"] += 1
    return counts


def traced_daemon(binary, loops, window, due):
    with tempfile.TemporaryDirectory(prefix="orrery-bench-") as tmp:
        home = Home(binary, tmp)
        every = "1s" if due else "1h"
        first = home.add("bulk-0", "--every", every, "--overlap", "allow", "--", "true")
        start = now_ms() + 3000 if due else now_ms() + 3_600_000
        home.copy_loop(first["id"], loops - 1, start, max(1, 1000 // loops))
        trace_dir = os.path.join(tmp, "trace")
        os.mkdir(trace_dir)
        log_path = os.path.join(tmp, "daemon.log")
        prefix = ["/usr/bin/strace", "-f", "-ff", "-qq", "-o", os.path.join(trace_dir, "t"),
                  "-e", "trace=fork,vfork,clone,clone3,execve,fsync,fdatasync,fcntl"]
        daemon = subprocess.Popen([*prefix, binary, "--home", home.home, "daemon"],
                                  stdin=subprocess.DEVNULL, stdout=open(log_path, "ab"),
                                  stderr=subprocess.STDOUT)
        wait_for_log(log_path, "ready: running loops")
        time.sleep(max(0, (start - now_ms()) / 1000) + window if due else 3 + window)
        with open(log_path, errors="replace") as log:
            daemon_pid = int(re.search(r"taken \(generation \d+, ttl \w+, pid (\d+)\)",
                                       log.read()).group(1))
        os.kill(daemon_pid, signal.SIGTERM)
        # strace exits when the last process it follows has: the daemon and every
        # supervisor it started.
        daemon.wait(timeout=120)
        runs = home.query("SELECT count(*) FROM runs WHERE finished_at IS NOT NULL")[0][0]
        counts = strace_counts(trace_dir)
        counts["runs"] = runs
        return counts


def counts_round(binary, window):
    busy = traced_daemon(binary, 10, window, due=True)
    idle = traced_daemon(binary, 10, window, due=False)
    runs = max(busy["runs"], 1)
    per_run = {key: (busy[key] - idle[key]) / runs
               for key in ("processes", "execs", "fsyncs", "write_transactions")}
    per_run["runs"] = busy["runs"]
    return per_run


def median_of(rounds, key):
    return statistics.median(r[key] for r in rounds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--loops", type=int, default=100)
    parser.add_argument("--window", type=int, default=20)
    parser.add_argument("--count-window", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out")
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    cpu, counts = [], []
    for i in range(options.repeat):
        cpu.append(cpu_round(binary, options.loops, options.window))
        print(f"cpu #{i + 1}: {cpu[-1]}", file=sys.stderr, flush=True)
        counts.append(counts_round(binary, options.count_window))
        print(f"counts #{i + 1}: {counts[-1]}", file=sys.stderr, flush=True)
    per_run = median_of(cpu, "per_run_ms")
    floor = median_of(cpu, "floor_spawn_ms")
    rows = [
        ("CPU per run, all processes (user + system)", f"{per_run:.2f} ms",
         f"{floor:.2f} ms (`true` posix_spawn'd, spawner + target)", f"{per_run / floor:.2f}"),
        ("… user / system", f"{median_of(cpu, 'per_run_user_ms'):.2f} / "
         f"{median_of(cpu, 'per_run_system_ms'):.2f} ms", "", ""),
        ("… the target alone (floor)", "", f"{median_of(cpu, 'floor_target_ms'):.2f} ms", ""),
        ("runs in the window (median)", f"{median_of(cpu, 'runs'):.0f}", "", ""),
        ("processes started per run", f"{median_of(counts, 'processes'):.2f}", "1", ""),
        ("execs per run", f"{median_of(counts, 'execs'):.2f}", "1", ""),
        ("write transactions per run", f"{median_of(counts, 'write_transactions'):.2f}", "", ""),
        ("fsyncs per run", f"{median_of(counts, 'fsyncs'):.2f}", "", ""),
    ]
    table = ["| what | orrery daemon | floor | ratio |", "| --- | ---: | --- | ---: |"]
    table += [f"| {' | '.join(row)} |" for row in rows]
    text = "\n".join(table) + "\n"
    print(text)
    if options.out:
        with open(options.out, "w") as out:
            out.write(text + "\n" + json.dumps({"cpu": cpu, "counts": counts}, indent=1) + "\n")


if __name__ == "__main__":
    main()
