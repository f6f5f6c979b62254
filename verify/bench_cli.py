"""Start-up benchmarks: the CPU time of the command line's light commands, each in a fresh process.

``dpverify --help``, ``dpverify claims`` and the refusal of bad input load no numerical library (NumPy, Numba,
SymPy, SciPy, Dask, matplotlib, dp-accounting; see :mod:`verify.ledger`), so they answer in a fraction of a second.
Each row runs one such command as ``python -m verify ...`` in a subprocess :data:`REPEATS` times and reports the
median of its CPU time (user + system, from :func:`os.wait4`: the child's own, whatever else the machine runs)
beside the command's target.  This module imports only the standard library: ``dpverify bench --cli`` runs these
rows alone in seconds, without the kernel rows of :mod:`verify.bench`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

REPEATS = 3  # runs of each command; the row reports their median
TIMEOUT = 60.0  # seconds a measured command may take before it is stopped (its row then says so)
HELP_TARGET, REFUSAL_TARGET, CLAIMS_TARGET = 0.3, 0.5, 1.5  # CPU seconds

#: name -> (the command's arguments, with {bad_out} an output path under a file; its target in CPU seconds)
ROWS: dict[str, tuple[tuple[str, ...], float]] = {
    "cli_help": (("--help",), HELP_TARGET),
    "cli_run_help": (("run", "--help"), HELP_TARGET),
    "cli_verify_help": (("verify", "--help"), HELP_TARGET),
    "cli_claims": (("claims",), CLAIMS_TARGET),
    "cli_claims_json": (("claims", "--json"), CLAIMS_TARGET),
    "cli_unknown_claim": (("claims", "no_such.claim"), REFUSAL_TARGET),
    "cli_show_unknown_claim": (("show", "no_such.claim"), REFUSAL_TARGET),
    "cli_bad_out": (("verify", "--out", "{bad_out}"), REFUSAL_TARGET),
    "cli_bad_epsilon": (("run", "dp_sgd", "--epsilon", "0"), REFUSAL_TARGET),
    "cli_unknown_algorithm": (("run", "no_such_algorithm"), REFUSAL_TARGET),
}


def cpu_seconds(argv: Sequence[str], cwd: str | os.PathLike | None = None,
                timeout: float = TIMEOUT) -> tuple[float, int | None]:
    """Run ``argv`` in a subprocess (output discarded); its CPU time (user + system) and exit status.

    Parameters
    ----------
    argv : sequence of str
        The command line, program first.
    cwd : str or path or None, optional
        The working directory (default: this process's).
    timeout : float, optional
        Seconds after which the command is killed.

    Returns
    -------
    tuple of (float, int or None)
        The child's CPU seconds (:func:`os.wait4`'s ``ru_utime + ru_stime``) and its exit status (negative: the
        signal that ended it); None for the status when it was killed after ``timeout``.
    """
    p = subprocess.Popen(list(argv), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline, killed = time.monotonic() + timeout, False
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            break
        if not killed and time.monotonic() > deadline:
            p.kill()
            killed = True
        time.sleep(0.005)
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    return usage.ru_utime + usage.ru_stime, None if killed else p.returncode


def run_cli_benchmarks(repeats: int = REPEATS, names: Sequence[str] | None = None) -> list[dict]:
    """Measure the rows of :data:`ROWS` (all, or ``names``): each command ``repeats`` times in a fresh process.

    The commands run as ``<this Python> -m verify ...`` in a temporary directory, with this process's
    environment (the same code as the running command).

    Parameters
    ----------
    repeats : int, optional
        Runs of each command (default :data:`REPEATS`); the row reports their median.
    names : sequence of str or None, optional
        Keys of :data:`ROWS`; None for all.

    Returns
    -------
    list of dict
        One row per command: ``name``, ``command`` (as typed), ``unit`` ("CPU s"), ``cpu_seconds`` (the median),
        ``cpu_repeats``, ``target``, ``within_target``, ``exit_status`` (of the last run; None if it timed out).

    Raises
    ------
    ValueError
        For a name not in :data:`ROWS` or ``repeats`` < 1.
    """
    chosen = list(ROWS) if names is None else list(names)
    unknown = [n for n in chosen if n not in ROWS]
    if unknown or repeats < 1:
        raise ValueError(f"names must be among {', '.join(ROWS)} and repeats >= 1 (got {unknown or repeats})")
    rows = []
    with tempfile.TemporaryDirectory(prefix="dpverify-bench-cli-") as tmp:
        blocker = Path(tmp) / "a-file"
        blocker.write_text("")
        for name in chosen:
            args, target = ROWS[name]
            args = tuple(a.format(bad_out=blocker / "out") for a in args)
            runs = [cpu_seconds([sys.executable, "-m", "verify", *args], cwd=tmp) for _ in range(repeats)]
            seconds = [s for s, _ in runs]
            median = statistics.median(seconds)
            shown = tuple("<a path under a file>" if a == str(blocker / "out") else a for a in args)
            rows.append({"name": name, "command": " ".join(("dpverify",) + shown), "unit": "CPU s",
                         "cpu_seconds": median, "cpu_repeats": seconds, "target": target,
                         "within_target": median <= target and runs[-1][1] is not None,
                         "exit_status": runs[-1][1]})
    return rows


def format_cli_bench(rows: Sequence[dict]) -> str:
    """The start-up rows as an aligned text table: command, median CPU seconds, target, whether within it.

    Parameters
    ----------
    rows : sequence of dict
        Rows of :func:`run_cli_benchmarks`.

    Returns
    -------
    str
    """
    heads = ("name", "command", f"CPU s (median of {max([len(r['cpu_repeats']) for r in rows] or [REPEATS])})",
             "target", "within")
    table = [[r["name"], r["command"], f"{r['cpu_seconds']:.3f}", f"{r['target']:g}",
              "yes" if r["within_target"] else "NO"] for r in rows]
    w = [max([len(h)] + [len(t[i]) for t in table]) for i, h in enumerate(heads)]
    lines = ["  ".join(h.ljust(w[i]) if i < 2 else h.rjust(w[i]) for i, h in enumerate(heads)),
             "  ".join("-" * x for x in w)]
    for t in table:
        lines.append("  ".join(s.ljust(w[i]) if i < 2 else s.rjust(w[i]) for i, s in enumerate(t)))
    return "\n".join(lines)
