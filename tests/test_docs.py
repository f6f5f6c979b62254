"""The API reference builds from the docstrings (Sphinx, warnings as errors)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_api_reference_builds(tmp_path):
    pytest.importorskip("sphinx", reason="sphinx is in the dev extra")
    out = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-W", "--keep-going",
                          str(ROOT / "docs" / "api"), str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    page = (tmp_path / "index.html").read_text()
    for name in ("verify.registry.claim", "verify.decide.rate", "verify.testing.assert_verdict",
                 "verify.algorithms.algorithm", "kernels.make_dataset", "verify.mutants.run"):
        assert f'id="{name}"' in page, name
