"""Claims inside pytest: ``assert_verdict(claim_id, expected)`` runs a claim and fails with its evidence.

    from verify.testing import assert_verdict

    def test_my_bound():
        assert_verdict("mylab.bound", "holds")            # budget: quick, or pytest --dpverify-budget full

The claim runs in the test's process on a serial runner (no cache), at ``budget`` (default: the
``--dpverify-budget`` option of the pytest plugin, else ``quick``) and ``seed``.
"""

from __future__ import annotations

import json

from verify import registry
from verify.registry import VERDICTS, Outcome, jsonable
from verify.runner import SerialRunner, using

#: the budget assert_verdict uses when none is given (the pytest plugin sets it from --dpverify-budget)
DEFAULT_BUDGET = "quick"


def run_claim(claim_id: str, budget: str | None = None, seed: int = 0) -> Outcome:
    """The claim's Outcome at ``budget`` and ``seed`` (unknown ids raise registry.UnknownName).

    The check runs in this process on a serial runner (no cache).

    Parameters
    ----------
    claim_id : str
        A registered claim id (the registry is loaded first).
    budget : str or None, optional
        "quick" or "full" (default :data:`DEFAULT_BUDGET`).
    seed : int, optional
        The check's seed.

    Returns
    -------
    verify.registry.Outcome
        What the check returned.
    """
    (c,) = registry.select([claim_id])
    with using(SerialRunner()):
        return c.check(budget or DEFAULT_BUDGET, seed)


def assert_verdict(claim_id: str, expected: str, budget: str | None = None, seed: int = 0) -> Outcome:
    """Run ``claim_id`` and fail unless its verdict is ``expected``.

    The failure message carries the evidence, the decisions and the counterexample.  Returns the Outcome.

    Parameters
    ----------
    claim_id : str
        A registered claim id.
    expected : str
        "holds", "violated" or "inconclusive".
    budget : str or None, optional
        "quick" or "full" (default :data:`DEFAULT_BUDGET`, set by ``--dpverify-budget``).
    seed : int, optional
        The check's seed.

    Returns
    -------
    verify.registry.Outcome
        The claim's outcome, when its verdict is ``expected``.

    Raises
    ------
    ValueError
        When ``expected`` is not a verdict.
    AssertionError
        When the verdict differs from ``expected``.

    Notes
    -----
    The function hides its own frame from pytest's tracebacks (``__tracebackhide__``): a failing test shows
    the test's line and the claim's evidence, not this function's source.
    """
    __tracebackhide__ = True  # pytest: the failure points at the caller's line
    if expected not in VERDICTS:
        raise ValueError(f"expected must be one of {', '.join(VERDICTS)} (got {expected!r})")
    budget = budget or DEFAULT_BUDGET
    out = run_claim(claim_id, budget, seed)
    if str(out.verdict) != expected:
        lines = [f"{claim_id}: expected {expected}, got {out.verdict} (budget {budget}, seed {seed})",
                 f"evidence: {out.evidence}"]
        lines += [f"decision: {d.phrase()}" for d in out.decisions]
        if out.counterexample is not None:
            lines.append("counterexample: " + json.dumps(jsonable(out.counterexample))[:2000])
        raise AssertionError("\n".join(lines))
    return out
