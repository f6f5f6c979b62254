"""Containment: a path or name read from a file in an output directory is checked before anything uses it.

An output directory may be shared, copied or unpacked from an archive, so the names found in its files (the
commit journal's staging and previous directories and result names, the ``plots`` of a kept ``results.json``,
the sweep cache's directories and entries) are data from an untrusted source.  The rule, in one place:

* the name has the shape the tool writes (:data:`FIGURE_NAME`, :data:`STAGING_NAME`, :data:`PREVIOUS_NAME`,
  :data:`PLAIN_NAME`) -- a relative path without ``..``, ``.``, backslashes or NUL;
* every directory on the way down from the output directory is a real directory, not a symbolic link, and
  the path resolves inside the output directory;
* the thing named is of the expected kind (a regular file, or a directory), not a symbolic link.

A name that fails is ignored with one warning line on stderr (:func:`warn`) and never acted on: not read,
moved, copied or removed.  :func:`escape_controls` is the other half of reading untrusted text: control
characters from result files never reach a terminal or a report unescaped.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path, PurePosixPath

#: a figure of a result, as :func:`verify.engine.figure_filename` names it under ``figures/``
FIGURE_NAME = re.compile(r"figures/[A-Za-z0-9_-][A-Za-z0-9_.-]*\.png")
#: a staging directory of :class:`verify.outputs.ResultSet`
STAGING_NAME = re.compile(r"\.dpverify-staging-[0-9a-f]{12}")
#: the directory a commit moves the previous result set into
PREVIOUS_NAME = re.compile(r"\.dpverify-previous-[0-9a-f]{12}")
#: a name of a result set (``results.json``, ``figures``, ...): one component, not hidden
PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")

# C0 and C1 controls, DEL, the Unicode line/paragraph separators and the bidirectional overrides and isolates
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def escape_controls(text, keep: str = "", json: bool = False) -> str:
    """``text`` with control characters written as escapes (``\\x1b``, ``\\r``, ``\\u202e``).

    Parameters
    ----------
    text : any
        The text (``str(text)`` is used).
    keep : str, optional
        Control characters left as they are, e.g. ``"\\n"`` where a newline is meant.
    json : bool, optional
        Write every escape as ``\\uXXXX`` (valid inside a JSON string, read back as the same character),
        for JSON text dumped with ``ensure_ascii=False``.

    Returns
    -------
    str
        The text; ESC, CR, every other C0/C1 control, DEL, U+2028/U+2029 and the bidirectional controls
        escaped unless in ``keep``.
    """

    def sub(m: re.Match) -> str:
        c = m.group()
        if c in keep:
            return c
        if json:
            return f"\\u{ord(c):04x}"
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c) or (
            f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")

    return _CONTROLS.sub(sub, str(text))


def warn(message: str) -> None:
    """One warning line on stderr: ``dpverify: warning: MESSAGE`` (whitespace folded, controls escaped).

    Parameters
    ----------
    message : str
        What was ignored and why.
    """
    line = escape_controls(" ".join(str(message).split()))
    print(f"dpverify: warning: {line}", file=sys.stderr, flush=True)


def _kind_ok(mode: int, kind: str | None) -> bool:
    if kind == "file":
        return stat.S_ISREG(mode)
    if kind == "dir":
        return stat.S_ISDIR(mode)
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)


def refusal(root, name, *, shape: re.Pattern | None = None, kind: str | None = None) -> str | None:
    """Why ``root/name`` may not be used, or None when it may (it need not exist).

    Parameters
    ----------
    root : str or path
        The output directory (or a directory inside it the name is relative to).
    name : any
        The name read from a file: must be a ``str``.
    shape : re.Pattern, optional
        The shape the whole name must match (``fullmatch``).
    kind : {"file", "dir", None}, optional
        What an existing ``root/name`` must be (None: a regular file or a directory).

    Returns
    -------
    str or None
        The reason it is refused (one phrase), or None.
    """
    if not isinstance(name, str):
        return f"is not a name (a {type(name).__name__})"
    if not name or "\0" in name or "\\" in name:
        return "is not a relative path the tool writes"
    p = PurePosixPath(name)
    if p.is_absolute() or any(part in ("..", ".", "") for part in name.split("/")):
        return "does not stay inside the output directory"
    if shape is not None and not shape.fullmatch(name):
        return "does not have the shape of a name the tool writes"
    here = Path(root)
    parts = p.parts
    for i, part in enumerate(parts):
        here = here / part
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            return None  # absent: nothing below it to follow
        except OSError as exc:
            return f"cannot be examined ({exc.strerror or type(exc).__name__})"
        if stat.S_ISLNK(st.st_mode):
            return "is a symbolic link" if i == len(parts) - 1 else f"passes through a symbolic link ({part})"
        last = i == len(parts) - 1
        if not last and not stat.S_ISDIR(st.st_mode):
            return f"passes through something that is not a directory ({part})"
        if last and not _kind_ok(st.st_mode, kind):
            return f"is not a {'directory' if kind == 'dir' else 'plain file'}"
    try:
        Path(root, name).resolve().relative_to(Path(root).resolve())
    except (ValueError, OSError):
        return "does not resolve inside the output directory"
    return None


def inside(root, name, *, what: str, source, shape: re.Pattern | None = None, kind: str | None = None,
           quiet_if_missing: bool = True) -> Path | None:
    """``root/name`` when :func:`refusal` allows it and it exists; else None, with one warning when refused.

    Parameters
    ----------
    root : str or path
        The directory the name is relative to.
    name : any
        The name read from ``source``.
    what : str
        What the name is, for the warning ("figure", "staging directory", ...).
    source : str or path
        The file the name was read from, for the warning.
    shape : re.Pattern, optional
        As for :func:`refusal`.
    kind : {"file", "dir", None}, optional
        As for :func:`refusal`.
    quiet_if_missing : bool, optional
        A name that passes but does not exist gives None without a warning (default); else it is returned.

    Returns
    -------
    Path or None
        The path, or None (refused, or absent when ``quiet_if_missing``).
    """
    why = refusal(root, name, shape=shape, kind=kind)
    if why is not None:
        shown = name if isinstance(name, str) else type(name).__name__
        warn(f"{source}: {what} {shown!r} {why}; ignored")
        return None
    path = Path(root) / name
    if quiet_if_missing and not os.path.lexists(path):
        return None
    return path
