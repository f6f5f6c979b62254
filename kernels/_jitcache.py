"""Numba's on-disk cache keyed by every kernel source, not only the decorated function's file.

Numba invalidates a cached kernel when the source file *holding the kernel* changes.  Our kernels
inline helpers from other files (``kernels._shared`` compiled through ``kernels._cpu``), so on its own an
edit to a helper would leave the old machine code running until ``__pycache__`` was deleted by hand.  This
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
    """SHA-256 over the relative path and bytes of every ``.py`` file under ``root`` (sorted).

    Files under a ``__pycache__`` folder are skipped; each path (POSIX form, relative to ``root``) and each
    file's bytes are followed by a NUL byte, so a rename changes the digest as well as an edit.

    Parameters
    ----------
    root : pathlib.Path, optional
        The folder to fingerprint, searched recursively; defaults to this package's folder (``kernels/``).

    Returns
    -------
    bytes
        The 32-byte SHA-256 digest.
    """
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
        """The source stamp Numba compares with the one stored beside a cached kernel.

        Returns
        -------
        bytes
            The fingerprint of every ``.py`` file of this package, computed once at import.
        """
        return _FINGERPRINT

    @classmethod
    def from_function(cls, py_func, py_file):
        """Build a locator for a function defined in this package, or decline (Numba then tries the next one).

        Parameters
        ----------
        py_func : function
            The Python function being compiled with ``cache=True``.
        py_file : str
            Path of the source file that defines ``py_func``.

        Returns
        -------
        KernelsCacheLocator or None
            A locator (built as Numba's in-tree locator builds it, which itself gives None when ``py_file``
            does not exist or its ``__pycache__`` folder cannot be created or written) when ``py_file`` lies
            under ``kernels/``; None when it lies elsewhere or its path cannot be resolved.
        """
        try:
            inside = Path(py_file).resolve().is_relative_to(ROOT)
        except (OSError, ValueError):
            return None
        if not inside:
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Put :class:`KernelsCacheLocator` first among Numba's locators (idempotent).

    Edits Numba's class-level list ``CacheImpl._locator_classes`` in place; does nothing when a class of the
    same name from this module is already in it.  Called at import unless ``NUMBA_CACHE_LOCATOR_CLASSES`` is set.
    """
    classes = _caching.CacheImpl._locator_classes
    if not any(getattr(c, "__name__", "") == KernelsCacheLocator.__name__ and c.__module__ == __name__
               for c in classes):
        classes.insert(0, KernelsCacheLocator)


def locator_of(dispatcher) -> object | None:
    """The cache locator a jitted kernel uses (None if it is not cached).

    Parameters
    ----------
    dispatcher : numba dispatcher
        A function compiled by ``numba.njit`` (or ``numba.jit``); any object without a Numba cache gives None.

    Returns
    -------
    object or None
        The locator instance of the dispatcher's cache implementation, or None when the kernel was compiled
        without ``cache=True``.
    """
    cache = getattr(dispatcher, "_cache", None)
    impl = getattr(cache, "_impl", None)
    return getattr(impl, "locator", None) or getattr(impl, "_locator", None)


if not os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
    install()
