"""The pagan rate sweeps run inside the regime of Lemma 3.1: every run they make is (ε, δ)-DP by the accountant.

Theorems 1/2 and eqs. (7)/(9) take T = c n²/b² with "c the constant in Lemma 3.1", which exists only for
ε ≤ ε̄.  The sweeps once ran around ε = 16, where one step of these runs is already not (16, δ)-DP.  These
tests certify each distinct (n, b, ε, c) that a budget's sweeps run, with dp-accounting's PLD on the exact
with-replacement mechanism (verify.privacy.Mechanism), so a grid moved outside the regime is caught.
"""
import pytest

import theory.pagan as tp
from theory import numeric
from verify.papers import pagan as vp
from verify.privacy import MAX_PLD_STEPS, Mechanism


def _points(budget: str) -> list[tuple[int, int, float, float]]:
    pts = {(t["n"], t["batch"], t["epsilon"], t["c"])
           for setting in vp.RATE_SETTINGS for t in vp.rate_tasks(setting, budget, 0)}
    pts |= {(t["n"], t["batch"], t["epsilon"], t["c"]) for t in vp.adversarial_tasks("pagan", budget, 0)}
    return sorted(pts)


def _certified(n: int, b: int, epsilon: float, c: float) -> bool:
    """(ε, δ)-DP of T = c n²/b² steps by the PLD; beyond the PLD's step limit, k equal chunks at (ε/k, δ/k) each
    (basic composition: a valid, looser proof)."""
    steps = vp.lemma31_steps(c, n, b)
    z = float(numeric(tp.noise_multiplier())(epsilon=epsilon, delta=vp.RATE_DELTA))
    k = -(-steps // MAX_PLD_STEPS)  # chunks
    for part in {steps // k, steps - (k - 1) * (steps // k)}:
        e, dl = epsilon / k, vp.RATE_DELTA / k
        if not Mechanism("with_replacement", z, part, n=n, batch_size=b).is_private(
                e, dl, "pld", vp._pld_grid(e, b / n, z)):
            return False
    return True


def test_every_quick_rate_run_is_private_at_its_epsilon():
    pts = _points("quick")
    assert all(eps <= vp.RATE_EPSILON_MAX for _, _, eps, _ in pts)
    failed = [p for p in pts if not _certified(*p)]
    assert not failed, f"rate-sweep runs not (ε, δ)-DP by the accountant: {failed}"


@pytest.mark.slow
def test_every_full_rate_run_is_private_at_its_epsilon():
    pts = _points("full")
    failed = [p for p in pts if not _certified(*p)]
    assert not failed, f"rate-sweep runs not (ε, δ)-DP by the accountant: {failed}"


def test_the_old_epsilon_16_base_point_was_not_private():
    # the point the benign sweep used to centre on: the accountant certifies c only up to ~1.6e-6 there, not 1/4
    assert not _certified(16000, vp.rate_batch(16000), 16.0, vp.RATE_C)
