"""The kernels' on-disk cache (kernels/_jitcache.py): no stale machine code after an edit anywhere in the package,
one per-user cache shared by clones at different paths, and one compile of a kernel at a time across processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
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
    e = dict(os.environ, PYTHONPATH=str(pkg_parent), DPVERIFY_NUMBA_CACHE=str(pkg_parent / "user-cache"), **env)
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
    e = dict(os.environ, PYTHONPATH=str(pkg.parent), DPVERIFY_NUMBA_CACHE=str(tmp_path / "user-cache"))
    e.pop("NUMBA_CACHE_DIR", None)
    e.pop("NUMBA_DISABLE_JIT", None)
    runs = [subprocess.run([sys.executable, "-c", _RECORD_SNIPPET], capture_output=True, text=True, env=e,
                           timeout=600, cwd=pkg.parent) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    first, second = (r.stdout.split() for r in runs)
    assert first == ["LoopParams", "0", "1"]  # compiled and written
    assert second == ["LoopParams", "1", "0"]  # loaded


# --------------------------------------------------------------------------------------
# The per-user cache, on a tiny kernel package of its own (a temporary folder)
# --------------------------------------------------------------------------------------
REPO = ROOT.parent
_TINY_INIT = ("from pathlib import Path\n"
              "from kernels import _jitcache\n"
              "_jitcache.install(_jitcache.locator_for(Path(__file__).parent))\n")
_TINY_HELPER = "OFFSET = 1\n"
_TINY_KERNEL = ("from numba import njit\n"
                "from tinyk.helper import OFFSET\n"
                "\n"
                "\n"
                "@njit(cache=True)\n"
                "def shift(x):\n"
                "    return x * 10 + OFFSET\n")
_TINY_SNIPPET = ("import json, sys; import tinyk.k as k; from kernels._jitcache import locator_of; "
                 "print('imported', flush=True); sys.stdin.readline(); v = k.shift(1); s = k.shift.stats; "
                 "print(json.dumps({'value': int(v), 'hits': sum(s.cache_hits.values()), "
                 "'misses': sum(s.cache_misses.values()), 'cache': locator_of(k.shift).get_cache_path()}))")


def _tiny_package(where: Path) -> Path:
    pkg = where / "tinyk"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(_TINY_INIT)
    (pkg / "helper.py").write_text(_TINY_HELPER)
    (pkg / "k.py").write_text(_TINY_KERNEL)
    return pkg


def _tiny_env(clone: Path, cache: Path | str) -> dict:
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([str(clone), str(REPO)]), DPVERIFY_NUMBA_CACHE=str(cache))
    for k in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT", "NUMBA_CACHE_LOCATOR_CLASSES"):
        e.pop(k, None)
    return e


def _start_tiny(clone: Path, cache: Path | str) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, "-c", _TINY_SNIPPET], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=_tiny_env(clone, cache), cwd=clone)
    assert p.stdout.readline().strip() == "imported", p.stderr.read()
    return p


def _finish_tiny(p: subprocess.Popen) -> dict:
    out, err = p.communicate("go\n", timeout=300)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _run_tiny(clone: Path, cache: Path | str) -> dict:
    return _finish_tiny(_start_tiny(clone, cache))


def _index_files(cache: Path) -> dict:
    return {p.relative_to(cache).as_posix(): p.read_bytes() for p in cache.rglob("*.nbi")}


def test_an_edited_kernel_never_reuses_old_machine_code_from_the_shared_cache(tmp_path):
    """Two edits Numba's own keys cannot see: a constant in the kernel's line (same bytecode, same file size,
    the file's time stamp put back) and a constant in another file of the package that the kernel freezes in.
    Each time the next interpreter compiles afresh (a miss, the new value, a new cache folder and index) and the
    one after it loads that new code (a hit)."""
    cache = tmp_path / "user-cache"
    pkg = _tiny_package(tmp_path / "clone")
    first = _run_tiny(pkg.parent, cache)
    assert (first["value"], first["hits"], first["misses"]) == (11, 0, 1)
    assert Path(first["cache"]).is_relative_to(cache)
    index_before = _index_files(cache)
    assert index_before

    kernel = pkg / "k.py"
    st = kernel.stat()
    kernel.write_text(_TINY_KERNEL.replace("x * 10", "x * 20"))
    os.utime(kernel, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert kernel.stat().st_size == st.st_size
    edited = _run_tiny(pkg.parent, cache)
    assert (edited["value"], edited["hits"], edited["misses"]) == (21, 0, 1)
    assert edited["cache"] != first["cache"]
    index_after = _index_files(cache)
    assert set(index_after) - set(index_before)  # a new index beside the old one, which is left alone
    assert all(index_after[k] == v for k, v in index_before.items())
    again = _run_tiny(pkg.parent, cache)
    assert (again["value"], again["hits"], again["misses"]) == (21, 1, 0)

    (pkg / "helper.py").write_text(_TINY_HELPER.replace("1", "2"))
    helper_edit = _run_tiny(pkg.parent, cache)
    assert (helper_edit["value"], helper_edit["hits"], helper_edit["misses"]) == (22, 0, 1)
    assert helper_edit["cache"] not in (first["cache"], edited["cache"])


def test_clones_at_different_paths_share_the_user_cache(tmp_path):
    cache = tmp_path / "user-cache"
    one, two = _tiny_package(tmp_path / "one"), _tiny_package(tmp_path / "elsewhere" / "two")
    a, b = _run_tiny(one.parent, cache), _run_tiny(two.parent, cache)
    assert (a["value"], a["hits"], a["misses"]) == (11, 0, 1)
    assert (b["value"], b["hits"], b["misses"]) == (11, 1, 0)  # the other clone's machine code
    assert a["cache"] == b["cache"]
    assert not (one / "__pycache__").exists() or not any((one / "__pycache__").glob("*.nb*"))


def test_the_user_cache_can_be_turned_off_or_moved(tmp_path):
    pkg = _tiny_package(tmp_path / "clone")
    off = _run_tiny(pkg.parent, "off")
    assert off["value"] == 11 and Path(off["cache"]) == (pkg / "__pycache__").resolve()
    moved = _run_tiny(pkg.parent, tmp_path / "elsewhere")
    assert Path(moved["cache"]).is_relative_to(tmp_path / "elsewhere") and moved["misses"] == 1
    env = {"DPVERIFY_NUMBA_CACHE": "", "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert _jitcache.cache_base(env) == tmp_path / "xdg" / "dpverify" / "numba"
    assert _jitcache.cache_base({"NUMBA_CACHE_DIR": str(tmp_path / "nb")}) == tmp_path / "nb" / "dpverify"
    assert _jitcache.cache_base({"DPVERIFY_NUMBA_CACHE": "OFF", "XDG_CACHE_HOME": "/x"}) is None


def test_two_processes_needing_one_kernel_compile_it_once(tmp_path):
    """Both interpreters reach the kernel while its compile lock is held (here by the test, as by a worker
    compiling it): once it is released one compiles and the other loads that machine code."""
    from filelock import FileLock

    cache = tmp_path / "user-cache"
    pkg = _tiny_package(tmp_path / "clone")
    # Numba names a kernel's cache files by its code object's first line: a decorated function's is the decorator's
    line = _TINY_KERNEL.splitlines().index("@njit(cache=True)") + 1
    where = _jitcache.cache_dir(pkg, {"DPVERIFY_NUMBA_CACHE": str(cache)})
    where.mkdir(parents=True)
    abi = getattr(sys, "abiflags", "")
    lock = FileLock(str(where / f"k.shift-{line}.py{sys.version_info[0]}{sys.version_info[1]}{abi}.lock"))
    with lock:
        procs = [_start_tiny(pkg.parent, cache) for _ in range(2)]
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        time.sleep(1.0)
        assert all(p.poll() is None for p in procs)  # waiting for the lock
        assert not list(where.glob("*.nbi"))  # nothing compiled while the lock is held
    results = [_finish_tiny(p) for p in procs]
    assert sorted((r["hits"], r["misses"]) for r in results) == [(0, 1), (1, 0)]
    assert all(r["value"] == 11 and Path(r["cache"]) == where for r in results)
