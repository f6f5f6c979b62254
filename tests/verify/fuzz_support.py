"""Shared pieces of the API fuzz tests (tests/verify/test_api_fuzz_*.py): junk values, the "mostly good,
up to two junk" argument strategy, and the property check (finite output or a named InvalidParameter); and for the
containment tests (test_containment.py, test_result_set_fuzz.py) the listing of everything outside an output
directory."""

import contextlib
import dataclasses
import hashlib
import inspect
import math
import os
import signal
from pathlib import Path

import numpy as np
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from kernels import InvalidParameter

NAN, INF = float("nan"), float("inf")
HUGE_INT = 10**400  # beyond float range
JUNK_REAL = st.sampled_from([NAN, INF, -INF, -1.0, 0.0, -0.0, 1e300, -1e300, 1e-300, "abc", "1", None, True, [],
                             [1.0], np.array([[1.0]]), HUGE_INT, 1e308])
JUNK_COUNT = st.sampled_from([0, -1, 2.5, 1e300, 10**10, 2**63, HUGE_INT, NAN, INF, "abc", None, True, [3], 1e10,
                              np.int64(-2), 4e9])
JUNK_ARRAY = st.sampled_from([None, "abc", [], [[1.0], [1.0, 2.0]], np.full(3, NAN), np.ones((2, 2, 2)), np.ones(7),
                              np.full(2, 1e300), np.array([INF, 1.0]), 3.0, np.array(["a", "b"]), [HUGE_INT, 1]])
JUNK_NAME = st.sampled_from(["", "nope", None, 3, np.array(["a"]), ["pagan"], True])
JUNK_ANY = st.one_of(JUNK_REAL, JUNK_COUNT, JUNK_ARRAY, JUNK_NAME)


def examples(n: int) -> int:
    """``n`` examples under the default ``ci`` profile; 20·n under ``DPVERIFY_HYPOTHESIS_PROFILE=fuzz``."""
    return 20 * n if os.environ.get("DPVERIFY_HYPOTHESIS_PROFILE") == "fuzz" else n


def fuzzed(good: dict, junk: dict | None = None, max_bad: int = 2):
    """Keyword arguments: all from ``good``, then up to ``max_bad`` of them replaced by their junk."""
    junk = junk or {}

    @st.composite
    def draw_args(draw):
        kw = {k: draw(v) for k, v in good.items()}
        names = sorted(set(good) | set(junk))
        bad = draw(st.lists(st.sampled_from(names), min_size=1, max_size=max_bad, unique=True))
        for k in (bad if draw(st.booleans()) else []):  # all good about half the time
            kw[k] = draw(junk.get(k, JUNK_ANY))
        return kw

    return draw_args()


def parameter_names(fn, extra=()) -> set:
    return set(inspect.signature(fn).parameters) | set(extra)


def names_a_parameter(exc: Exception, params) -> bool:
    """The exception names only parameters of the call (``InvalidParameter.name`` may list several)."""
    if not isinstance(exc, InvalidParameter):
        return False
    parts = [p.strip() for p in exc.name.split(",")]
    return all(p in params for p in parts) and str(exc).startswith(exc.name)


def all_finite(out, skip=()) -> bool:
    """Every number reachable in ``out`` (arrays, dicts, sequences, dataclasses) is finite."""
    if isinstance(out, dict):
        return all(all_finite(v, skip) for k, v in out.items() if k not in skip)
    if isinstance(out, (list, tuple)):
        return all(all_finite(v, skip) for v in out)
    if dataclasses.is_dataclass(out) and not isinstance(out, type):
        return all(all_finite(getattr(out, f.name), skip) for f in dataclasses.fields(out) if f.name not in skip)
    if isinstance(out, np.ndarray):
        return out.dtype.kind not in "fc" or bool(np.all(np.isfinite(out)))
    if isinstance(out, (float, np.floating)):
        return math.isfinite(out)
    return True


def outcome(label: str) -> None:
    """Count the outcome in Hypothesis' statistics (a no-op outside a @given test)."""
    try:
        event(f"outcome: {label}")
    except InvalidArgument:
        pass


@contextlib.contextmanager
def watchdog(fn, kw, seconds: int = 120):
    """Under the ``fuzz`` profile, fail a call that runs past ``seconds`` (a hang) and show its arguments."""
    if os.environ.get("DPVERIFY_HYPOTHESIS_PROFILE") != "fuzz" or not hasattr(signal, "SIGALRM"):
        yield
        return

    def alarm(signum, frame):
        raise TimeoutError(f"{getattr(fn, '__qualname__', fn)}({kw}) ran past {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def check(fn, kw, params, skip=()):
    """The property: finite output, or InvalidParameter naming parameters of ``fn``."""
    try:
        with watchdog(fn, kw):
            out = fn(**kw)
    except InvalidParameter as exc:
        outcome("InvalidParameter")
        assert names_a_parameter(exc, params), f"{fn.__name__}({kw}) -> {exc!r}"
        return None
    outcome("returned")
    assert all_finite(out, skip), f"{fn.__name__}({kw}) returned non-finite output"
    return out


small = lambda lo, hi: st.integers(lo, hi)  # noqa: E731
reals = lambda lo, hi: st.floats(lo, hi, allow_nan=False, allow_infinity=False)  # noqa: E731


def outside_listing(root: Path, out: Path) -> dict:
    """Every path under ``root`` but outside ``out``: its content hash, link target, or "dir"."""
    rows = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if here == out or out in here.parents:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = here / name
            if p == out:
                continue
            key = str(p.relative_to(root))
            if p.is_symlink():
                rows[key] = "link -> " + os.readlink(p)
            elif p.is_file():
                rows[key] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                rows[key] = "dir"
    return rows
