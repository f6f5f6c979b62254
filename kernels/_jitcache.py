"""Numba's on-disk cache keyed by every kernel source, not only the decorated function's file.

Numba invalidates a cached kernel when the source file *holding the kernel* changes.  Our kernels
inline helpers from other files (``kernels._shared`` compiled through ``kernels._cpu``), so an edit
to a helper left the old machine code running until ``__pycache__`` was deleted by hand.  This
module installs a cache locator for the files of this package whose source stamp is the SHA-256 of
*every* ``.py`` file under ``kernels/``: any edit anywhere in the package makes every cached kernel a
miss, which Numba then recompiles and overwrites (the cache stays in ``__pycache__``, one version).
The task cache of ``verify.runner`` fingerprints the same sources, so the two agree.

Installed by ``kernels/__init__.py`` before any kernel is decorated.  A user who sets
``NUMBA_CACHE_LOCATOR_CLASSES`` chooses Numba's locators themselves and this one is not used.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core import caching as _caching

ROOT = Path(__file__).resolve().parent


def sources_fingerprint(root: Path = ROOT) -> bytes:
    """SHA-256 over the relative path and bytes of every ``.py`` file under ``root`` (sorted)."""
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" in f.parts:
            continue
        h.update(f.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.digest()


_FINGERPRINT = sources_fingerprint()


class KernelsCacheLocator(_caching.InTreeCacheLocator):
    """In-tree cache for this package's kernels, stamped with the fingerprint of all its sources."""

    def get_source_stamp(self):
        return _FINGERPRINT

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            inside = Path(py_file).resolve().is_relative_to(ROOT)
        except (OSError, ValueError):
            return None
        if not inside:
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Put :class:`KernelsCacheLocator` first among Numba's locators (idempotent)."""
    classes = _caching.CacheImpl._locator_classes
    if not any(getattr(c, "__name__", "") == KernelsCacheLocator.__name__ and c.__module__ == __name__
               for c in classes):
        classes.insert(0, KernelsCacheLocator)


def locator_of(dispatcher) -> object | None:
    """The cache locator a jitted kernel uses (None if it is not cached)."""
    cache = getattr(dispatcher, "_cache", None)
    impl = getattr(cache, "_impl", None)
    return getattr(impl, "locator", None) or getattr(impl, "_locator", None)


if not os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
    install()
