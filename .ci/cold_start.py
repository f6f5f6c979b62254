#!/usr/bin/env python3
"""Time the README's first command on a cold machine: a fresh clone, an empty home, no compiled kernels anywhere.

Clones the current commit (``HEAD``; uncommitted changes are not in it) into a scratch folder, points ``HOME`` and
``XDG_CACHE_HOME`` into that folder (so pip's cache, Matplotlib's font cache and dpverify's per-user kernel cache
start empty), and times, separately, the install (``python3 -m venv .venv && .venv/bin/pip install -q -e .``) and
the ledger (``.venv/bin/dpverify verify``), as wall, user and system seconds of the command and its children.

    python3 .ci/cold_start.py                     # install + cold ledger (what a new user pays)
    python3 .ci/cold_start.py --warm              # ... then the same clone again (kernels compiled)
    python3 .ci/cold_start.py --second-clone      # ... then a new clone at another path, same per-user cache
    python3 .ci/cold_start.py --venv .venv        # skip the install: run the clone with an existing environment
    python3 .ci/cold_start.py pagan.example1      # only these claims (a quick check of the script itself)

``--venv`` runs ``PYTHON -m verify verify`` with the clone first on ``PYTHONPATH`` (an environment without network
access, or to time the ledger alone).  The scratch folder is removed at the end unless ``--keep`` is given.  Prints
one line per phase and, with ``--json``, one JSON object.  Exit status 2 on bad input, 1 if a phase failed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# variables that would let the run find compiled kernels or another checkout's code
_CLEARED = ("DPVERIFY_NUMBA_CACHE", "NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES", "PYTHONPATH", "MPLCONFIGDIR",
            "VIRTUAL_ENV", "PIP_CACHE_DIR")


def timed(cmd: list[str] | str, cwd: Path, env: dict, log: Path) -> dict:
    """Run ``cmd`` and return its wall, user and system seconds (children included) and exit status.

    Parameters
    ----------
    cmd : list of str or str
        The command (a string runs through ``bash -c``).
    cwd : pathlib.Path
        Its working directory.
    env : dict
        Its environment.
    log : pathlib.Path
        Where its standard output and error go.

    Returns
    -------
    dict
        ``wall_s``, ``user_s``, ``sys_s`` (rounded to 0.1 s) and ``rc``.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(log, "w") as out:
        args = ["bash", "-c", cmd] if isinstance(cmd, str) else cmd
        rc = subprocess.run(args, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall_s": round(wall, 1), "user_s": round(after.ru_utime - before.ru_utime, 1),
            "sys_s": round(after.ru_stime - before.ru_stime, 1), "rc": rc}


def clone(dest: Path) -> None:
    """Clone this repository's ``HEAD`` commit into ``dest`` (a plain clone: no build output, no caches)."""
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(REPO), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", head], check=True)


def main(argv=None) -> int:
    """Parse the options, run the phases, print their times; the exit status (0, 1 if a phase failed, 2)."""
    ap = argparse.ArgumentParser(prog=".ci/cold_start.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default="python3", help="the interpreter that makes the virtual environment")
    ap.add_argument("--venv", default=None, metavar="PATH",
                    help="use this existing environment (its bin/python) instead of installing one")
    ap.add_argument("--scratch", default=None, metavar="DIR", help="scratch folder (default: a new temporary one)")
    ap.add_argument("--warm", action="store_true", help="run the ledger a second time in the same clone")
    ap.add_argument("--second-clone", action="store_true",
                    help="then clone again at another path and run the ledger (the per-user cache is warm)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("ids", nargs="*", metavar="ID", help="claims to check (default: the whole ledger at quick)")
    args = ap.parse_args(argv)
    if args.venv is not None and not (Path(args.venv) / "bin" / "python").exists():
        print(f".ci/cold_start.py: --venv: {args.venv!r} has no bin/python (expected a virtual environment)",
              file=sys.stderr)
        return 2
    if args.scratch is not None and Path(args.scratch).exists() and any(Path(args.scratch).iterdir()):
        print(f".ci/cold_start.py: --scratch: {args.scratch!r} is not empty (expected a new or empty folder)",
              file=sys.stderr)
        return 2

    scratch = Path(args.scratch or tempfile.mkdtemp(prefix="dpverify-cold-")).absolute()
    scratch.mkdir(parents=True, exist_ok=True)
    home = scratch / "home"
    (home / ".cache").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), MPLBACKEND="Agg")
    phases: dict[str, dict] = {}

    def ledger(where: Path, name: str) -> dict:
        if args.venv is None:
            cmd = [str(where / ".venv" / "bin" / "dpverify"), "verify", *args.ids]
            run_env = env
        else:
            cmd = [str(Path(args.venv).absolute() / "bin" / "python"), "-m", "verify", "verify", *args.ids]
            run_env = dict(env, PYTHONPATH=str(where))
        return timed(cmd, where, run_env, scratch / f"{name}.log")

    try:
        first = scratch / "clone"
        clone(first)
        if args.venv is None:
            phases["install"] = timed(f"{args.python} -m venv .venv && .venv/bin/pip install -q -e .", first, env,
                                      scratch / "install.log")
        if phases.get("install", {}).get("rc", 0) == 0:
            phases["cold_ledger"] = ledger(first, "cold_ledger")
            if args.warm:
                phases["warm_ledger"] = ledger(first, "warm_ledger")
            if args.second_clone:
                second = scratch / "elsewhere" / "clone"
                clone(second)
                if args.venv is None:
                    phases["second_install"] = timed(f"{args.python} -m venv .venv && .venv/bin/pip install -q -e .",
                                                     second, env, scratch / "second_install.log")
                phases["second_clone_ledger"] = ledger(second, "second_clone_ledger")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    failed = [k for k, v in phases.items() if v["rc"] != 0]
    if args.json:
        print(json.dumps({"scratch": str(scratch) if args.keep else None, "phases": phases}))
    else:
        for name, t in phases.items():
            status = "" if t["rc"] == 0 else f"  (exit {t['rc']})"
            print(f"{name:<20} {t['wall_s']:8.1f} s wall {t['user_s']:8.1f} s user {t['sys_s']:6.1f} s sys{status}")
        if "install" in phases and "cold_ledger" in phases:
            total = phases["install"]["wall_s"] + phases["cold_ledger"]["wall_s"]
            print(f"{'install + ledger':<20} {total:8.1f} s wall")
        if args.keep:
            print(f"logs and clones in {scratch}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
