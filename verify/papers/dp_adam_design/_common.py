"""What several modules of the ``dp_adam_design`` pack share: the decision helpers and the thresholds that
say when negative bias-corrected v̂ are "rare" or "a constant fraction" (eq. (2)/(3) and Figure 4 use them).

This module imports none of the pack's other modules.
"""

from __future__ import annotations

from scipy import stats as st

from verify import decide
from verify.mutants import declare_equivalent


def _rel_estimate(samples, target: float) -> decide.Estimate:
    """(mean(samples) − target)/|target| with its t standard error (n − 1 degrees of freedom)."""
    e = decide.mean_estimate(samples)
    scale = abs(float(target))
    return decide.Estimate((e.value - target) / scale, e.se / scale, e.df)


def _verdict(decisions, exact_ok: bool = True) -> str:
    """An exact failure is a violation by itself (a computed counterexample); otherwise the decisions decide."""
    return "violated" if not exact_ok else str(decide.combine(decisions))


# eq. (2) / eq. (3) and Figure 4: when negative bias-corrected v̂ are rare, and when a constant fraction
RARE, CONSTANT_AT_THRESHOLD, CONSTANT_BEYOND = 0.01, 0.05, 0.25  # "rare" / "constant fraction", fixed in advance
# d* is where v̂'s mean equals its noise's standard deviation (the Gaussian prediction there is Φ(−1) = 0.159): the
# exact fraction at d = d* must lie in [Φ(−1.5), Φ(−0.5)] — a d* off by 3× puts it at Φ(−3) or Φ(−1/3)
AT_THRESHOLD_BAND = (float(st.norm.cdf(-1.5)), float(st.norm.cdf(-0.5)))


#: why the stepsize mutant cannot change the claims that feed the kernel a fixed gradient stream
STEPSIZE_EQUIVALENT = ("the statement is about the moment estimates (or noise) of a fixed "
                       "gradient stream, which the stepsize does not enter: it moves only θ")


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
