"""Atomic file writes: a crash or kill mid-write leaves the previous complete file (or none).

Every output of the suite (results, reports, figures, cached sweep tasks) goes through
here: the data is written to a hidden temporary name in the same directory, flushed,
and moved into place with ``os.replace``.  Files get the ordinary permissions
(``0o666`` less the umask).
"""

from __future__ import annotations

import errno
import os
import uuid
from pathlib import Path
from typing import Callable

#: errno values of a full disk / quota / file-size limit (verify.outputs.DISK_FULL)
DISK_FULL = frozenset(e for e in (getattr(errno, "ENOSPC", None), getattr(errno, "EDQUOT", None),
                                   getattr(errno, "EFBIG", None)) if e is not None)


def temp_path(path: str | os.PathLike) -> Path:
    """A fresh hidden temporary name next to ``path`` (same directory, so ``os.replace`` is atomic).

    Parameters
    ----------
    path : str or path
        The file meant.

    Returns
    -------
    Path
        ``.<name>.<random hex>.tmp`` in the same directory (not created).
    """
    path = Path(path)
    return path.parent / f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"


def write_with(path: str | os.PathLike, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` to produce the file at a temporary path, then move it to ``path``.

    Missing parent directories are created; the temporary file never outlives the call.

    Parameters
    ----------
    path : str or path
        The file to produce (replaced if present).
    write : callable
        Writes the complete file at the temporary path it is given.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        Any error of the write or the rename; a full disk is reported under ``path``, not the temporary name.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        if exc.errno in DISK_FULL and exc.filename != str(path):  # name the file meant, not its temporary
            raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path)) from exc
        raise
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def write_atomic(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write text or bytes to ``path`` atomically (fsync'd before the rename).

    Parameters
    ----------
    path : str or path
        The file (parents created).
    data : str or bytes
        The contents; text is encoded as UTF-8.

    Returns
    -------
    Path
        ``path``.
    """

    def write(tmp: Path) -> None:
        with open(tmp, "xb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())

    return write_with(path, write)
