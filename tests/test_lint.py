"""The code passes ruff with the project's configuration ([tool.ruff] in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Files being reworked on another branch; linted once that work lands.  The lead removes this list.
PENDING = ["verify/adadps.py", "verify/dp_adam_design.py", "tests/verify/test_adadps_claims.py",
           "tests/verify/test_dp_adam_design_claims.py"]


def test_ruff_check_passes():
    pytest.importorskip("ruff", reason="ruff is in the dev extra")
    cmd = [sys.executable, "-m", "ruff", "check", "--no-cache", "theory", "kernels", "verify", "tests"]
    if PENDING:  # the lead removes this exclusion
        cmd += ["--extend-exclude", ",".join(PENDING)]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
