"""Packaging: what setuptools would put in a wheel is every package of the four top-level folders."""

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("dpvalidate", "theory", "kernels", "verify")


def test_a_wheel_carries_every_package_of_the_four_top_level_folders():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    found = set(find_packages(where=str(ROOT), include=cfg["include"]))
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for top in TOPS for p in (ROOT / top).rglob("__init__.py")
               if "__pycache__" not in p.parts}
    assert {"verify.papers.pagan", "kernels.cuda"} <= on_disk
    assert found == on_disk, (sorted(on_disk - found), sorted(found - on_disk))


def test_a_wheel_carries_the_figure_style():
    """verify.plots reads verify/dpverify.mplstyle at run time: pyproject's package-data for ``verify`` must match it
    (setuptools copies a package's matching data files into the wheel beside its modules)."""
    from fnmatch import fnmatch

    from verify import plots

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert plots.STYLE.is_file() and plots.STYLE.parent == ROOT / "verify"
    assert any(fnmatch(plots.STYLE.name, pattern) for pattern in data["verify"]), data
