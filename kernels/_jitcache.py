"""Numba's on-disk cache of the kernels: per user, keyed by every kernel source, one compile per kernel at a time.

Three things Numba does not do by itself:

* **Keyed by every source.**  Numba invalidates a cached kernel when the source file *holding the kernel*
  changes.  Our kernels inline helpers from other files (``kernels._shared`` compiled through
  ``kernels._cpu``), so on its own an edit to a helper would leave the old machine code running.  The
  locator here stamps every cached kernel with the SHA-256 of *every* ``.py`` file under ``kernels/``
  (:func:`sources_fingerprint`), and the per-user cache folder is named after it too: any edit anywhere in
  the package makes every cached kernel a miss.  The task cache of ``verify.runner`` fingerprints the same
  sources, so the two agree.
* **Per user, shared by clones.**  The cache lives in
  ``$XDG_CACHE_HOME/dpverify/numba/<fingerprint>/<toolchain>/`` (``~/.cache`` when ``XDG_CACHE_HOME`` is
  unset), so a fresh clone, a second worktree or a new virtual environment of the same version (same kernel
  sources, same Python, Numba, llvmlite and NumPy) loads the kernels another one compiled.  The folder does
  not depend on where the clone lies: it is keyed by content (the fingerprint), by the kernel's file
  relative to ``kernels/`` and, as in Numba, by the function's name and first line.  ``DPVERIFY_NUMBA_CACHE``
  moves it (a folder) or turns it off (``off``: the cache is then in-tree, ``kernels/__pycache__``, one per
  clone, as Numba keeps it); when it is unset, ``NUMBA_CACHE_DIR`` (if set) holds it under ``dpverify/``.
  A cache folder that cannot be created or written falls back to the in-tree one.
* **One compile per kernel at a time.**  ``dpverify verify`` checks claims in two or more forked worker
  processes, and the claims of one paper start together: each worker compiled the same kernel at the same
  moment (half of a cold run's compile time).  :func:`install` wraps ``Dispatcher.compile`` so that a
  top-level compile of a kernel cached here holds a file lock beside its cache entry: a second process
  that needs the same kernel waits for the first and then loads its machine code from the cache.

Installed by ``kernels/__init__.py`` before any kernel is decorated.  A user who sets
``NUMBA_CACHE_LOCATOR_CLASSES`` chooses Numba's locators themselves and none of this is used.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import threading
from pathlib import Path

from numba.core import caching as _caching
from numba.core import dispatcher as _dispatcher

ROOT = Path(__file__).resolve().parent

#: The environment variable that moves the per-user cache (a folder) or turns it off (``off``).
ENV = "DPVERIFY_NUMBA_CACHE"
#: Values of :data:`ENV` that turn the per-user cache off (case-insensitive).
OFF = ("off", "0", "no", "false", "none")
#: Longest wait for another process's compile of the same kernel before compiling it here anyway (seconds).
LOCK_TIMEOUT = 900.0


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


def toolchain_tag() -> str:
    """The compilers and ABIs a cached kernel depends on besides its sources, as one folder name.

    Returns
    -------
    str
        E.g. ``cpython-311-numba0.68.1-llvmlite0.46.0-numpy2.4.6``: the Python implementation and version
        with its ABI flags, and the versions of Numba, llvmlite and NumPy.  (Numba itself also keys each entry
        by the CPU and its features.)
    """
    import llvmlite
    import numba
    import numpy

    py = f"{sys.implementation.name}-{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    return f"{py}-numba{numba.__version__}-llvmlite{llvmlite.__version__}-numpy{numpy.__version__}"


def cache_base(environ=None) -> Path | None:
    """The folder that holds the per-user caches of every version, or None when the per-user cache is off.

    Parameters
    ----------
    environ : mapping, optional
        The environment to read (default ``os.environ``).

    Returns
    -------
    pathlib.Path or None
        ``$DPVERIFY_NUMBA_CACHE`` when it names a folder; None when it is one of :data:`OFF`; otherwise
        ``$NUMBA_CACHE_DIR/dpverify`` when ``NUMBA_CACHE_DIR`` is set; otherwise
        ``$XDG_CACHE_HOME/dpverify/numba`` (an absolute ``XDG_CACHE_HOME``) or ``~/.cache/dpverify/numba``.
        Relative folders are taken from the current directory; ``~`` is expanded.
    """
    env = os.environ if environ is None else environ
    value = env.get(ENV, "").strip()
    if value.lower() in OFF:
        return None
    if value:
        return Path(value).expanduser().absolute()
    if env.get("NUMBA_CACHE_DIR", "").strip():
        return Path(env["NUMBA_CACHE_DIR"].strip()).expanduser().absolute() / "dpverify"
    xdg = env.get("XDG_CACHE_HOME", "").strip()
    home = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return home / "dpverify" / "numba"


def cache_dir(root: Path = ROOT, environ=None) -> Path | None:
    """The per-user cache folder of the kernels under ``root`` as they are now (None when the cache is off).

    Parameters
    ----------
    root : pathlib.Path, optional
        The package folder (default ``kernels/``).
    environ : mapping, optional
        The environment to read (default ``os.environ``).

    Returns
    -------
    pathlib.Path or None
        ``cache_base()/<first 32 hex digits of the sources' fingerprint>/<toolchain_tag()>``, or None.
    """
    root = Path(root).resolve()
    return _user_dir(_FINGERPRINT if root == ROOT else sources_fingerprint(root), environ)


class KernelsCacheLocator(_caching._CacheLocator):
    """Cache locator of the kernels under :attr:`root`: per-user folder keyed by the sources, else in-tree.

    Every entry is stamped with :attr:`fingerprint` (Numba drops an index whose stamp differs) and, in the
    per-user cache, lies in a folder named after it, so machine code compiled from other sources is never
    found.  :func:`locator_for` makes the class of another package (the tests use one in a temporary folder).
    """

    #: The package folder whose kernels this class locates.
    root: Path = ROOT
    #: The fingerprint of every source under :attr:`root`, computed once.
    fingerprint: bytes = b""

    def __init__(self, py_func, py_file, cache_path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_path)

    def get_cache_path(self):
        """The folder holding this kernel's index and data files.

        Returns
        -------
        str
            The per-user folder (plus the kernel file's folder relative to :attr:`root`) or the in-tree
            ``__pycache__`` of the kernel's file.
        """
        return self._cache_path

    def get_source_stamp(self):
        """The source stamp Numba compares with the one stored beside a cached kernel.

        Returns
        -------
        bytes
            The fingerprint of every ``.py`` file under :attr:`root`, computed once at import.
        """
        return self.fingerprint

    def get_disambiguator(self):
        """Numba's disambiguator of same-named functions in one file: the function's first line.

        Returns
        -------
        str
            The line number.
        """
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        """Build a locator for a function defined under :attr:`root`, or decline (Numba then tries the next one).

        Parameters
        ----------
        py_func : function
            The Python function being compiled with ``cache=True``.
        py_file : str
            Path of the source file that defines ``py_func``.

        Returns
        -------
        KernelsCacheLocator or None
            A locator of the per-user cache (:func:`cache_dir`, then the file's folder relative to
            :attr:`root`) when it is on and can be created and written, else of the in-tree ``__pycache__``
            of ``py_file`` when that can; None when ``py_file`` lies outside :attr:`root`, does not exist,
            its path cannot be resolved, or neither folder is usable.
        """
        try:
            path = Path(py_file).resolve()
            rel = path.relative_to(cls.root)
        except (OSError, ValueError):
            return None
        if not path.exists():
            return None
        candidates = [path.parent / "__pycache__"]
        user = _user_dir(cls.fingerprint)
        if user is not None:
            candidates.insert(0, user.joinpath(*rel.parent.parts))
        for where in candidates:
            self = cls(py_func, py_file, where)
            try:
                self.ensure_cache_path()
            except OSError:
                continue
            return self
        return None


def _user_dir(fingerprint: bytes, environ=None) -> Path | None:
    base = cache_base(environ)
    if base is None:
        return None
    return base / fingerprint.hex()[:32] / _toolchain()


@functools.lru_cache(maxsize=1)
def _toolchain() -> str:
    return toolchain_tag()


def locator_for(root: Path) -> type:
    """A :class:`KernelsCacheLocator` class for the package folder ``root`` (its fingerprint computed now).

    Parameters
    ----------
    root : pathlib.Path
        The package folder whose ``cache=True`` functions the class locates.

    Returns
    -------
    type
        A subclass of :class:`KernelsCacheLocator` with ``root`` and ``fingerprint`` set.
    """
    root = Path(root).resolve()
    return type("KernelsCacheLocator", (KernelsCacheLocator,),
                {"root": root, "fingerprint": sources_fingerprint(root), "__module__": __name__})


_FINGERPRINT = sources_fingerprint()
KernelsCacheLocator.fingerprint = _FINGERPRINT


def install(locator: type = KernelsCacheLocator) -> None:
    """Put ``locator`` first among Numba's locators and make kernel compiles one at a time (idempotent).

    Edits Numba's class-level list ``CacheImpl._locator_classes`` in place (a locator class for the same
    root already in it is left there), and wraps ``Dispatcher.compile`` once (:func:`_compile_one_at_a_time`).
    Called at import unless ``NUMBA_CACHE_LOCATOR_CLASSES`` is set.

    Parameters
    ----------
    locator : type, optional
        A :class:`KernelsCacheLocator` class (default: the one of ``kernels/``; :func:`locator_for` makes others).
    """
    classes = _caching.CacheImpl._locator_classes
    if not any(isinstance(c, type) and issubclass(c, KernelsCacheLocator) and c.root == locator.root
               for c in classes):
        classes.insert(0, locator)
    compile_ = _dispatcher.Dispatcher.compile
    if not getattr(compile_, "_dpverify_one_at_a_time", False):
        _dispatcher.Dispatcher.compile = _compile_one_at_a_time(compile_)


_depth = threading.local()


def _compile_one_at_a_time(compile_):
    """Wrap Numba's ``Dispatcher.compile``: a top-level compile of a kernel cached by a
    :class:`KernelsCacheLocator` holds a file lock beside the kernel's cache entry.

    A second process (or thread) that needs the same kernel waits, then finds it in the on-disk cache.  Only
    the outermost compile of a thread takes a lock (a kernel compiled while typing another one does not), so
    two compiles never wait on each other in a cycle; after :data:`LOCK_TIMEOUT` seconds the compile goes on
    without the lock.  Dispatchers without such a cache are compiled as before.
    """

    @functools.wraps(compile_)
    def compile(self, sig):
        depth = getattr(_depth, "n", 0)
        lock = _lock_of(self) if depth == 0 else None
        _depth.n = depth + 1
        try:
            if lock is None:
                return compile_(self, sig)
            from filelock import Timeout

            try:
                lock.acquire(timeout=LOCK_TIMEOUT)
            except (Timeout, OSError):
                return compile_(self, sig)
            try:
                return compile_(self, sig)
            finally:
                lock.release()
        finally:
            _depth.n = depth

    compile._dpverify_one_at_a_time = True
    return compile


def _lock_of(dispatcher):
    """The file lock of a dispatcher's cache entry, or None (no cache of ours)."""
    locator = locator_of(dispatcher)
    if not isinstance(locator, KernelsCacheLocator):
        return None
    impl = dispatcher._cache._impl
    from filelock import FileLock

    return FileLock(os.path.join(locator.get_cache_path(), impl.filename_base + ".lock"), thread_local=False)


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
