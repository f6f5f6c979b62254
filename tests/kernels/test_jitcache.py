"""No stale machine code: editing a helper that kernels inline recompiles them (kernels/_jitcache.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import kernels
import kernels.projections as kj
from kernels import _jitcache

ROOT = Path(kernels.__file__).resolve().parent

_SNIPPET = ("import numpy as np, kernels.projections as kj; "
            "print(repr(float(kj.clip_rows(np.full((1, 4), 3.0), 1.0)[0, 0])))")


def _copy_package(tmp_path: Path, name: str = "pkg") -> Path:
    dst = tmp_path / name / "kernels"
    shutil.copytree(ROOT, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _run(pkg_parent: Path, **env) -> float:
    e = dict(os.environ, PYTHONPATH=str(pkg_parent), **env)
    e.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", _SNIPPET], capture_output=True, text=True, env=e, timeout=300,
                         cwd=pkg_parent)
    assert out.returncode == 0, out.stderr
    return float(out.stdout.strip())


def _edit_clip_factor(pkg: Path) -> None:
    shared = pkg / "_shared.py"
    src = shared.read_text()
    old = "    return clip_norm / norm\n"
    assert src.count(old) == 1
    shared.write_text(src.replace(old, "    return 0.5 * clip_norm / norm\n"))


def test_kernels_use_the_package_locator():
    assert isinstance(_jitcache.locator_of(kj._clip_rows), _jitcache.KernelsCacheLocator)
    assert _jitcache.locator_of(kj._clip_rows).get_source_stamp() == _jitcache.sources_fingerprint()


def test_fingerprint_changes_with_any_source(tmp_path):
    pkg = _copy_package(tmp_path)
    before = _jitcache.sources_fingerprint(pkg)
    assert before == _jitcache.sources_fingerprint(ROOT)
    _edit_clip_factor(pkg)
    assert _jitcache.sources_fingerprint(pkg) != before


def test_editing_an_inlined_helper_gives_fresh_numbers(tmp_path):
    """The issue's demonstration, on two fresh copies of the package.  clip_rows clips (3, 3, 3, 3) (norm 6)
    to norm 1: 0.5 per coordinate; the edit halves the clipping factor: 0.25.  With Numba's own locator the
    edit is not seen (the cached machine code of the kernel that inlines the helper runs on); with the
    package's locator the next run recompiles and returns the edited helper's numbers."""
    stock_pkg, ours_pkg = _copy_package(tmp_path, "stock"), _copy_package(tmp_path, "ours")
    stock = {"NUMBA_CACHE_LOCATOR_CLASSES": "InTreeCacheLocator"}
    assert _run(stock_pkg.parent, **stock) == 0.5 and _run(ours_pkg.parent) == 0.5  # caches written
    _edit_clip_factor(stock_pkg)
    _edit_clip_factor(ours_pkg)
    assert _run(stock_pkg.parent, **stock) == 0.5  # stale: the edit is not seen
    assert _run(ours_pkg.parent) == 0.25  # fresh


_RECORD_SNIPPET = ("import kernels; from kernels import pagan as kp; "
                   "ds = kernels.make_problem('abs_regression', seed=0, n=20, d=3); "
                   "kp.run_algorithm('pagan', ds, epsilon=1.0, delta=1e-5, steps=3, seed=1); "
                   "s = kp._adaptive_loop.stats; "
                   "print(type(kp.loop_params(kp.make_config('pagan', ds, epsilon=1.0, delta=1e-5), ds)).__name__, "
                   "sum(s.cache_hits.values()), sum(s.cache_misses.values()))")


def test_a_kernel_taking_a_namedtuple_record_is_cached(tmp_path):
    """The PAGAN loop takes its scalars as one ``LoopParams`` NamedTuple: a second interpreter loads its machine
    code from the on-disk cache (a hit, no miss) instead of compiling it again."""
    pkg = _copy_package(tmp_path)
    e = dict(os.environ, PYTHONPATH=str(pkg.parent))
    e.pop("NUMBA_CACHE_DIR", None)
    e.pop("NUMBA_DISABLE_JIT", None)
    runs = [subprocess.run([sys.executable, "-c", _RECORD_SNIPPET], capture_output=True, text=True, env=e,
                           timeout=600, cwd=pkg.parent) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    first, second = (r.stdout.split() for r in runs)
    assert first == ["LoopParams", "0", "1"]  # compiled and written
    assert second == ["LoopParams", "1", "0"]  # loaded
