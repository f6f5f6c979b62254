"""Output directories: checked before any work, locked while a command writes, result sets swapped whole.

``dpverify verify`` (and ``run``/``bench``) write a *result set* -- a fixed list of names in the
output directory (``results.json``, ``report.md``, ``report.html``, ``figures/`` for ``verify``).
Three things keep what a user finds there consistent:

* :func:`check_out` -- the directory is checked (and created) before anything is computed: a path that
  names a file, lies under a file, or cannot be written (permissions, a read-only filesystem,
  ``/proc``) is refused with one message; nothing is left behind.
* :class:`OutputLock` -- a ``filelock`` lock on ``DIR/.dpverify.lock`` held for the whole command.  The
  holder writes who it is (pid, host, start time, command) beside it (``.dpverify.lock.json``); a second
  command into the same directory is refused with a message naming the holder, or waits for it
  (``--wait``).  The lock is the operating system's (``flock``), so a killed holder releases it.
* :class:`ResultSet` -- the command writes its set into a hidden staging directory inside DIR and
  :meth:`ResultSet.commit` replaces the previous set by the new one, name by name, under a journal
  (``.dpverify-commit.json``).  A failure or interruption before the commit leaves the previous set as it
  was (the staging directory is removed); an interruption during the commit -- renames only, with
  SIGINT/SIGTERM deferred -- is rolled forward by the next command into DIR, which finds the journal.

The journal is acted on only when it is the tool's: it carries a random token that the commit wrote just
before it (``.dpverify-commit.token``), and every name in it has the tool's shape and stays inside DIR
(:mod:`verify.contained`).  Any other journal is reported in one warning line and removed without acting on it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hmac
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Iterator, Sequence

from . import contained
from .atomic import DISK_FULL, write_atomic

LOCK_NAME = ".dpverify.lock"
HOLDER_NAME = ".dpverify.lock.json"
JOURNAL_NAME = ".dpverify-commit.json"
TOKEN_NAME = ".dpverify-commit.token"
STAGING_PREFIX = ".dpverify-staging-"
PREVIOUS_PREFIX = ".dpverify-previous-"

#: errno values that mean "the disk (or the file-size limit) is full"


class BadOutput(ValueError):
    """The output directory cannot be used (bad input: exit status 2)."""


class OutputBusy(BadOutput):
    """Another dpverify command holds the output directory's lock."""


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk (or the file-size limit) is full.

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    bool
        True for an OSError whose errno is one of ``DISK_FULL``.
    """
    return isinstance(exc, OSError) and exc.errno in DISK_FULL


# --------------------------------------------------------------------------------------
# checking --out
# --------------------------------------------------------------------------------------
def check_out(raw, option: str = "--out") -> Path:
    """The output directory ``raw``, checked creatable and writable; else :class:`BadOutput`.

    Refused: an empty path, an existing file, a path under a file, a directory this process cannot
    create or write in (permissions, a read-only filesystem, ``/proc``).  The check creates missing
    directories and a probe file and removes them again: it leaves nothing behind either way.

    Parameters
    ----------
    raw : str or path or None
        The path given on the command line.
    option : str, optional
        The option's name, for the messages.

    Returns
    -------
    Path
        ``raw`` as a path (not created).

    Raises
    ------
    BadOutput
        For any of the refusals above, the message naming ``option``.
    """
    s = "" if raw is None else str(raw)
    if not s.strip():
        raise BadOutput(f"{option}: must be a directory path (got {s!r})")
    if "\0" in s:
        raise BadOutput(f"{option}: must be a directory path without NUL characters (got {s!r})")
    path = Path(s)
    if path.exists() and not path.is_dir():
        raise BadOutput(f"{option}: must be a directory, not an existing file (got {s})")
    # the nearest existing ancestor must be a directory
    anc = path.absolute()
    missing: list[Path] = []
    while not anc.exists():
        missing.append(anc)
        anc = anc.parent
    if not anc.is_dir():
        raise BadOutput(f"{option}: must be a directory path, but {anc} is a file (got {s})")
    created: list[Path] = []
    try:
        for d in reversed(missing):
            d.mkdir()
            created.append(d)
        fd, probe = tempfile.mkstemp(prefix=".dpverify-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise BadOutput(f"{option}: must be a directory this process can create and write in "
                        f"(got {s}: {why})") from None
    finally:  # a check, not a creation: the command creates the directory when it takes the lock
        for d in reversed(created):
            with contextlib.suppress(OSError):
                d.rmdir()
    return path


def make_out(path: Path) -> list[Path]:
    """Create ``path`` (and missing parents); return the directories created, deepest last.

    Parameters
    ----------
    path : Path
        The output directory.

    Returns
    -------
    list of Path
        The directories created (absolute), outermost first; [] when ``path`` existed.
    """
    missing = []
    p = path.absolute()
    while not p.exists():
        missing.append(p)
        p = p.parent
    created = []
    for d in reversed(missing):
        d.mkdir(exist_ok=True)
        created.append(d)
    return created


def remove_created(created: Sequence[Path]) -> None:
    """Undo :func:`make_out` for a command refused before it wrote anything (only empty directories go).

    The lock files in the deepest directory are removed first.

    Parameters
    ----------
    created : sequence of Path
        What :func:`make_out` returned.
    """
    if not created:
        return
    for name in (HOLDER_NAME, LOCK_NAME):
        with contextlib.suppress(OSError):
            (created[-1] / name).unlink()
    for d in reversed(created):
        with contextlib.suppress(OSError):
            d.rmdir()


# --------------------------------------------------------------------------------------
# the lock
# --------------------------------------------------------------------------------------
def _holder_text(out: Path) -> str:
    try:
        if contained.refusal(out, HOLDER_NAME, kind="file") is not None:  # a link: not read through
            raise ValueError(HOLDER_NAME)
        h = json.loads((out / HOLDER_NAME).read_text())
        text = (f"pid {h['pid']} on {h['host']}, started {h['started']}"
                + (f": {h['command']}" if h.get("command") else ""))
        return contained.escape_controls(" ".join(text.split()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return "holder not recorded yet"


class OutputLock:
    """Hold ``DIR/.dpverify.lock`` (filelock) for a command; refuse or wait when another holds it."""

    def __init__(self, out: str | os.PathLike, wait: bool = False, option: str = "--out", command: str = ""):
        self.out = Path(out)
        self.wait = wait
        self.option = option
        self.command = command or " ".join(["dpverify", *sys.argv[1:]])
        self._lock = None

    def __enter__(self) -> "OutputLock":
        import filelock

        why = contained.refusal(self.out, LOCK_NAME, kind="file")
        if why is not None:  # never opened through a link: the lock file is opened for writing
            raise BadOutput(f"{self.option}: {self.out / LOCK_NAME} {why}, not a lock file this tool wrote; "
                            f"remove it or choose another directory")
        lock = filelock.FileLock(str(self.out / LOCK_NAME))
        try:
            lock.acquire(timeout=0)
        except filelock.Timeout:
            if not self.wait:
                raise OutputBusy(f"{self.option}: {self.out} is in use by another dpverify command "
                                 f"({_holder_text(self.out)}); wait for it to finish or pass --wait") from None
            print(f"dpverify: waiting for {self.out}, in use by another dpverify command "
                  f"({_holder_text(self.out)})", file=sys.stderr, flush=True)
            lock.acquire()
        except OSError as exc:
            raise BadOutput(f"{self.option}: must be a directory where a lock file can be taken "
                            f"(got {self.out}: {exc.strerror or exc})") from None
        self._lock = lock
        holder = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
                  "command": self.command}
        with contextlib.suppress(OSError):  # who holds it is informative; a full disk must not stop the lock
            write_atomic(self.out / HOLDER_NAME, json.dumps(holder) + "\n")
        return self

    def __exit__(self, *exc) -> None:
        if self._lock is not None:
            with contextlib.suppress(OSError):
                (self.out / HOLDER_NAME).unlink()
            self._lock.release()
            self._lock = None


# --------------------------------------------------------------------------------------
# result sets
# --------------------------------------------------------------------------------------
@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """SIGINT/SIGTERM received inside the block take effect when it ends (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    sigs = [s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s is not None]
    old = {s: signal.getsignal(s) for s in sigs}
    for s in sigs:
        signal.signal(s, lambda signum, frame: got.append(signum))
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        for s in got[:1]:
            h = old[s]
            if callable(h):
                h(s, None)
            elif h == signal.SIG_DFL:
                os.kill(os.getpid(), s)


def public_name(filename, out: Path) -> str:
    """A path in a staging directory as the user knows it (``DIR/results.json``, not ``DIR/.dpverify-staging-…/…``).

    Parameters
    ----------
    filename : str or path or None
        A path from an error (e.g. ``OSError.filename``).
    out : Path
        The output directory.

    Returns
    -------
    str
        The path with the staging directory left out; ``out`` when ``filename`` is empty; the path itself when
        it is not under ``out``.
    """
    if not filename:
        return str(out)
    p = Path(str(filename))
    try:
        rel = p.relative_to(out)
    except ValueError:
        return str(p)
    if rel.parts and rel.parts[0].startswith(STAGING_PREFIX):
        rel = Path(*rel.parts[1:])
    return str(out / rel)


def previous_set_text(out: Path) -> str:
    """What a failed command kept, for its message: '… the previous result set in DIR (started T) is kept'.

    Parameters
    ----------
    out : Path
        The output directory.

    Returns
    -------
    str
        The previous result set (from its results.json), else the visible files kept, else that there was none.
    """
    try:
        if contained.refusal(out, "results.json", kind="file") is None:
            meta = json.loads((out / "results.json").read_text())["meta"]
            return f"the previous result set in {out} (started {contained.escape_controls(meta['started'])}) is kept"
    except (OSError, ValueError, LookupError, TypeError):
        pass
    try:
        names = sorted(p.name for p in out.iterdir() if not p.name.startswith(".") and p.name != "cache")
    except OSError:
        names = []
    return (f"the previous files in {out} ({', '.join(names)}) are kept" if names
            else f"there was no previous result set in {out}")


class ResultSet:
    """A staging directory for the files ``names`` of a result set in ``out``; :meth:`commit` swaps it in.

    Use as a context manager (inside :class:`OutputLock`): entering finishes a commit that an earlier
    command left half done and removes stale staging directories; leaving without :meth:`commit`
    (an error, an interruption) removes the staging directory and leaves ``out`` as it was.
    """

    def __init__(self, out: str | os.PathLike, names: Sequence[str]):
        self.out = Path(out)
        self.names = tuple(names)
        self.dir = self.out / f"{STAGING_PREFIX}{uuid.uuid4().hex[:12]}"
        self.committed = False

    def __enter__(self) -> "ResultSet":
        recover(self.out)
        self.dir.mkdir()
        return self

    def __exit__(self, *exc) -> None:
        if not self.committed:
            shutil.rmtree(self.dir, ignore_errors=True)

    def commit(self) -> None:
        """Replace the set in ``out`` by the staged one (names absent from the staging are removed)."""
        staged = [n for n in self.names if (self.dir / n).exists()]
        previous = self.out / f"{PREVIOUS_PREFIX}{uuid.uuid4().hex[:12]}"
        token = uuid.uuid4().hex
        journal = {"staging": self.dir.name, "previous": previous.name, "names": list(self.names), "new": staged,
                   "token": token}
        with _signals_deferred():
            write_atomic(self.out / TOKEN_NAME, token + "\n")
            write_atomic(self.out / JOURNAL_NAME, json.dumps(journal) + "\n")
            _roll_forward(self.out, journal)
            self.committed = True


def _roll_forward(out: Path, journal: dict) -> None:
    """Finish the swap ``journal`` describes (its names checked by :func:`_journal_refusal`)."""
    staging, previous = out / journal["staging"], out / journal["previous"]
    new = set(journal["new"])
    for name in journal["names"]:
        dst = out / name
        if name in new:
            src = staging / name
            if not os.path.lexists(src):
                continue  # moved in already
            if os.path.lexists(dst):
                previous.mkdir(exist_ok=True)
                os.replace(dst, previous / name)
            os.replace(src, dst)
        elif os.path.lexists(dst):
            previous.mkdir(exist_ok=True)
            os.replace(dst, previous / name)
    (out / JOURNAL_NAME).unlink()
    with contextlib.suppress(OSError):
        (out / TOKEN_NAME).unlink()
    _remove_tree(out, previous.name, contained.PREVIOUS_NAME)
    _remove_tree(out, staging.name, contained.STAGING_NAME)


def _remove_tree(out: Path, name: str, shape) -> None:
    """Remove the directory ``out/name`` if it is one of the tool's (its shape; a real directory, no link)."""
    if os.path.lexists(out / name) and contained.refusal(out, name, shape=shape, kind="dir") is None:
        shutil.rmtree(out / name, ignore_errors=True)


def _read_token(out: Path) -> str | None:
    """The commit token beside the journal, or None (absent, not a plain file, unreadable)."""
    if contained.refusal(out, TOKEN_NAME, kind="file") is not None or not (out / TOKEN_NAME).exists():
        return None
    try:
        return (out / TOKEN_NAME).read_text(errors="replace").strip()
    except OSError:
        return None


def _journal_refusal(out: Path, journal) -> str | None:
    """Why ``journal`` (read from ``out``'s journal file) is not the tool's to act on, or None."""
    if not isinstance(journal, dict):
        return "is not a JSON object"
    missing = [k for k in ("staging", "previous", "names", "new", "token") if k not in journal]
    if missing:
        return f"lacks {', '.join(missing)}"
    token = journal["token"]
    if not (isinstance(token, str) and re.fullmatch(r"[0-9a-f]{32}", token)):
        return "has no commit token of the tool's shape"
    on_disk = _read_token(out)
    if on_disk is None or not hmac.compare_digest(on_disk, token):
        return f"does not carry the token of the commit that wrote {TOKEN_NAME}"
    for key, shape in (("staging", contained.STAGING_NAME), ("previous", contained.PREVIOUS_NAME)):
        why = contained.refusal(out, journal[key], shape=shape, kind="dir")
        if why is not None:
            return f"{key} {journal[key]!r} {why}"
    names, new = journal["names"], journal["new"]
    if not (isinstance(names, list) and isinstance(new, list)):
        return "names and new must be lists"
    for name in names:
        why = contained.refusal(out, name, shape=contained.PLAIN_NAME)
        if why is None and name in (LOCK_NAME, HOLDER_NAME, JOURNAL_NAME, TOKEN_NAME, "cache"):
            why = "is not a name of a result set"
        if why is not None:
            return f"name {name!r} {why}"
    if any(not isinstance(n, str) or n not in names for n in new):
        return "new names a file that is not among its names"
    return None


def recover(out: str | os.PathLike) -> None:
    """Finish a commit an interrupted command left (its journal), remove stale staging/previous directories.

    Call with the output lock held.  A journal that is not the tool's (no matching token, a name of another
    shape or outside ``out``, a symbolic link) is reported in one warning line and removed, never acted on:
    it can never be completed, and left in place it would be reported by every later command.

    Parameters
    ----------
    out : str or path
        The output directory (existing).
    """
    out = Path(out)
    jpath = out / JOURNAL_NAME
    if os.path.lexists(jpath):
        why = contained.refusal(out, JOURNAL_NAME, kind="file")
        journal = None
        if why is None:
            try:
                journal = json.loads(jpath.read_text())
            except (OSError, ValueError) as exc:
                why = f"cannot be read as JSON ({type(exc).__name__})"
        if why is None:
            why = _journal_refusal(out, journal)
        if why is None:
            with _signals_deferred():
                _roll_forward(out, journal)
        else:
            contained.warn(f"{jpath}: a commit journal this tool cannot trust ({why}); not acted on, removed")
            with contextlib.suppress(OSError):
                jpath.unlink()
    if not os.path.lexists(jpath):
        with contextlib.suppress(OSError):
            (out / TOKEN_NAME).unlink()  # a token without its journal: a commit stopped before writing it
    for p in out.iterdir():
        for prefix, shape in ((STAGING_PREFIX, contained.STAGING_NAME), (PREVIOUS_PREFIX, contained.PREVIOUS_NAME)):
            if p.name.startswith(prefix):
                why = contained.refusal(out, p.name, shape=shape, kind="dir")
                if why is None:
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    contained.warn(f"{p}: {why}, not a directory this tool left; ignored")
