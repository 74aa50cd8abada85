"""CLI start-up: ``baccarat-audit --help`` and ``baccarat-audit odds --decks 8``, each a whole
process from start to exit, against ``python -c pass`` in the same run (issue 13: both under
0.25 s). The standalone odds oracle (``python -m pipeline.oracle --decks 8``, the enumeration
without the CLI) is timed too, so the CLI's own overhead shows.

    python benchmarks/bench_startup.py [--repeat 20] [--smoke]

The commands run in turn, round after round (baseline, help, odds, oracle, baseline, ...), so
a machine whose speed drifts slows them alike; each ratio is the median of the per-round
ratios. The CLI runs as ``python -m pipeline`` from the repository root, which is what the
installed ``baccarat-audit`` script runs (plus runpy), so the code of this checkout is timed.
``--smoke`` runs two rounds, prints the result as JSON (the summary on stderr) and writes no
results file.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import save, summary

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.25
BASELINE = "python -c pass"
COMMANDS: dict[str, list[str]] = {
    BASELINE: ["-c", "pass"],
    "baccarat-audit --help": ["-m", "pipeline", "--help"],
    "baccarat-audit odds --decks 8": ["-m", "pipeline", "odds", "--decks", "8"],
    "python -m pipeline.oracle --decks 8": ["-m", "pipeline.oracle", "--decks", "8"],
}
CLI_COMMANDS = ("baccarat-audit --help", "baccarat-audit odds --decks 8")


def run_once(args: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``python ARGS``, start to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or (args != COMMANDS[BASELINE] and not done.stdout):
        raise SystemExit(
            f"python {' '.join(args)} exited {done.returncode} with no output to time; "
            f"fix the command first: {done.stderr.decode(errors='replace')[-500:]}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(rounds: int) -> dict[str, Any]:
    run_once(COMMANDS[BASELINE])  # warm the file cache and the interpreter's .pyc files
    for args in COMMANDS.values():
        run_once(args)
    walls: dict[str, list[float]] = {name: [] for name in COMMANDS}
    cpus: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(rounds):
        for name, args in COMMANDS.items():
            wall, cpu = run_once(args)
            walls[name].append(wall)
            cpus[name].append(cpu)
    result: dict[str, Any] = {"rounds": rounds, "target_s": TARGET_S, "commands": {}}
    for name in COMMANDS:
        entry: dict[str, Any] = {"wall": summary(walls[name]), "cpu": summary(cpus[name])}
        if name != BASELINE:
            entry["wall_ratio_to_baseline"] = statistics.median(
                a / b for a, b in zip(walls[name], walls[BASELINE], strict=True)
            )
            entry["cpu_ratio_to_baseline"] = statistics.median(
                a / b for a, b in zip(cpus[name], cpus[BASELINE], strict=True)
            )
        if name in CLI_COMMANDS:
            entry["under_target"] = entry["wall"]["median_s"] < TARGET_S
        result["commands"][name] = entry
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20, help="rounds of all the commands")
    parser.add_argument(
        "--smoke", action="store_true", help="two rounds, JSON on stdout, no results file"
    )
    args = parser.parse_args()
    result = measure(2 if args.smoke else args.repeat)
    # Wall time of a short process tracks how busy the machine is; CPU time much less so.
    result["load_average_after"] = list(os.getloadavg())
    result["command"] = " ".join(["python", "benchmarks/bench_startup.py", *sys.argv[1:]])
    result["note"] = (
        "whole processes, wall and user+system CPU; the CLI as `python -m pipeline` from the "
        "repository root; ratios are medians of per-round ratios to `python -c pass`"
    )
    baseline = result["commands"][BASELINE]["wall"]["median_s"]
    lines = [f"{BASELINE}: {baseline:.3f} s (median wall of {result['rounds']} rounds)"]
    for name, entry in result["commands"].items():
        if name == BASELINE:
            continue
        verdict = ""
        if name in CLI_COMMANDS:
            verdict = f"; target < {TARGET_S} s {'met' if entry['under_target'] else 'MISSED'}"
        lines.append(
            f"{name}: {entry['wall']['median_s']:.3f} s wall ({entry['wall_ratio_to_baseline']:.1f}"
            f"x baseline), {entry['cpu']['median_s']:.3f} s CPU{verdict}"
        )
    if args.smoke:  # the figures for a test to read; the summary goes to stderr
        print(json.dumps(result, indent=2, sort_keys=True))
        print("\n".join(lines), file=sys.stderr)
    else:
        print("\n".join([*lines, f"-> {save('startup', result)}"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
