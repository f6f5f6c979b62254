"""What several modules of the ``dp_adam_design`` pack share: the decision helpers, the finding of a violated check
built from its decided parts (:func:`decided_finding`), and the thresholds that say when negative bias-corrected
v̂ are "rare" or "a constant fraction" (eq. (2)/(3) and Figure 4 use them).

This module imports none of the pack's other modules.
"""

from __future__ import annotations

from scipy import stats as st

from verify import decide
from verify.findings import Finding, Repair, parts_finding
from verify.mutants import declare_equivalent


def _rel_estimate(samples, target: float) -> decide.Estimate:
    """(mean(samples) − target)/|target| with its t standard error (n − 1 degrees of freedom)."""
    e = decide.mean_estimate(samples)
    scale = abs(float(target))
    return decide.Estimate((e.value - target) / scale, e.se / scale, e.df)


def _verdict(decisions, exact_ok: bool = True) -> str:
    """An exact failure is a violation by itself (a computed counterexample); otherwise the decisions decide."""
    return "violated" if not exact_ok else str(decide.combine(decisions))


#: the paper's own setting for a check that runs a setting of its own: stated for general B, σ, C, β₂, checked at a
#: setting fixed in the claim's notes before any run, not at one the paper states, so the size there is not computed
THEORY_WHERE = ("stated for general B, σ, C, β₂; the check runs a setting fixed in its notes before any run, not one "
                "the paper states numerically: the failure's size at the paper's setting is not computed")
#: why a failing §4 check has no repair: it decides the statement as written, and no other form in the same run
NO_REPAIR_MEASURED = ("the check decides the statement (its closed form against the kernel) as written; a failure "
                      "is a kernel or closed form off that statement, and no corrected form is decided in the run")


def decided_finding(decisions, exact=(), *, what: str, paper_where: str = THEORY_WHERE,
                    repair: Repair | None = None, no_repair_reason: str = NO_REPAIR_MEASURED) -> Finding:
    """The finding of a violated check from the parts it decided: its statistical decisions and its exact parts.

    A thin use of :func:`verify.findings.parts_finding`: each decision (its reason, its verdict) and each exact
    part is one explored point; the violated ones fail; no edge is named, so the scope is in the regime.

    Parameters
    ----------
    decisions : sequence of verify.decide.Decision
        The check's statistical decisions.
    exact : iterable of (str, bool or str), optional
        The exact parts (no test): a label and whether it held (True/False) or its verdict.
    what : str
        What the parts are, for the region's sentence.
    paper_where : str, optional
        The paper's own setting and where it is stated (default :data:`THEORY_WHERE`).
    repair : verify.findings.Repair or None, optional
        The repaired statement and its verdict from the same run.
    no_repair_reason : str, optional
        Why no repair is known (default :data:`NO_REPAIR_MEASURED`; ignored when ``repair`` is given).

    Returns
    -------
    verify.findings.Finding
    """
    parts = [(d.reason, str(d.verdict)) for d in decisions]
    for label, ok in exact:
        parts.append((str(label), ("holds" if ok else "violated") if isinstance(ok, bool) else str(ok)))
    return parts_finding(parts, what=what, paper_where=paper_where, repair=repair,
                         no_repair_reason="" if repair is not None else no_repair_reason)


# eq. (2) / eq. (3) and Figure 4: when negative bias-corrected v̂ are rare, and when a constant fraction
RARE, CONSTANT_AT_THRESHOLD, CONSTANT_BEYOND = 0.01, 0.05, 0.25  # "rare" / "constant fraction", fixed in advance
# d* is where v̂'s mean equals its noise's standard deviation (the Gaussian prediction there is Φ(−1) = 0.159): the
# exact fraction at d = d* must lie in [Φ(−1.5), Φ(−0.5)] — a d* off by 3× puts it at Φ(−3) or Φ(−1/3)
AT_THRESHOLD_BAND = (float(st.norm.cdf(-1.5)), float(st.norm.cdf(-0.5)))


#: why the stepsize mutant cannot change the claims that feed the kernel a fixed gradient stream
STEPSIZE_EQUIVALENT = ("the statement is about the moment estimates (or noise) of a fixed "
                       "gradient stream, which the stepsize does not enter: it moves only θ")


def equivalence_points(decisions: list) -> list[dict]:
    """The points of equivalence decisions (:func:`verify.decide.equivalent`), with the lower end of each one's
    interval (the holds bound is its upper end; the reasons print both).

    Parameters
    ----------
    decisions : list of Decision
        Equivalence decisions (their interval is symmetric about the estimate: its lower end is 2·estimate − the
        holds bound, the upper end).

    Returns
    -------
    list of dict
        :func:`verify.decide.decision_points`'s rows, each with ``holds bound, lower`` added.
    """
    rows = decide.decision_points(decisions)
    for row, dd in zip(rows, decisions):
        row["holds bound, lower"] = 2 * dd.estimate - dd.holds_bound
    return rows


def declare_stepsize_equivalent(claim_id: str) -> None:
    """Declare the ``stepsize*10`` kernel mutant equivalent for ``claim_id``: the stepsize mutant moves only θ,
    and the claim feeds the kernel a fixed stream of per-record gradients (none is computed at θ) and measures its
    moment estimates and noise, so the mutated algorithm satisfies the same statement.

    Parameters
    ----------
    claim_id : str
        The claim's id.
    """
    declare_equivalent(claim_id, "stepsize*10", STEPSIZE_EQUIVALENT)
