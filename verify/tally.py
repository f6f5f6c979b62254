"""The running claim's tally of statistical tests: how much of its declared family share its check has spent.

A claim declares how many statistical tests its check makes (``@claim(..., tests=k)``); the family-wise level of
``violated`` (:mod:`verify.decide`) is divided over every test the loaded ledger declares.  While a check runs, the
registry scopes it with :func:`claim_tests`, and every decision the check makes spends one test
(:func:`spend_one`); a check that makes more than it declares raises, so the family-wise rate stays controlled.

This module sits below both :mod:`verify.registry` (which scopes each check) and :mod:`verify.decide` (which spends
and reads the budget), so neither has to import the other for it.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Iterator


@dataclass
class Spend:
    """The tally of one running check: its claim, the tests it declares, those used so far, its budget."""

    claim_id: str
    declared: int
    used: int = 0
    budget: str | None = None


_running: contextvars.ContextVar[Spend | None] = contextvars.ContextVar("dpverify_decide_spend", default=None)


@contextlib.contextmanager
def claim_tests(claim_id: str, declared: int, budget: str | None = None) -> Iterator[Spend]:
    """Scope a claim's check: its decisions spend from the ``declared`` tests of its family share.

    Used as a ``with`` block around the check (:func:`verify.registry.claim` does it).

    Parameters
    ----------
    claim_id : str
        The claim being checked (named in the error when it overspends).
    declared : int
        The number of statistical tests the claim declares (``@claim(..., tests=k)``).
    budget : str or None, optional
        The budget it runs at, so that an undecided rate says what would decide it.

    Yields
    ------
    Spend
        The running tally (claim id, declared, used so far, budget).
    """
    token = _running.set(Spend(claim_id, int(declared), budget=budget))
    try:
        yield _running.get()
    finally:
        _running.reset(token)


def running() -> Spend | None:
    """The tally of the check running in this context.

    Returns
    -------
    Spend or None
        The running check's tally, or None outside any claim (notebooks, user code).
    """
    return _running.get()


def spend_one() -> None:
    """Count one statistical test against the running check's declared share (nothing outside a claim).

    Raises
    ------
    RuntimeError
        When the running check makes more statistical tests than its claim declares.
    """
    s = _running.get()
    if s is None:  # a decision outside any claim (notebooks, user code): counted nowhere
        return
    s.used += 1
    if s.used > s.declared:
        raise RuntimeError(f"claim {s.claim_id} makes more statistical tests than it declares "
                           f"(tests={s.declared}); declare them in @claim(..., tests=...) so the family-wise "
                           "false-alarm rate stays controlled")
