"""Session 27: pagan's Theorem 3 privacy part beyond ε = 4 (pagan.algorithm3.privacy.large_eps).  The declared T
rounds of multiplier T·√(log(T/δ))/ε compose exactly into one Gaussian of multiplier √T·√(log(T/δ))/ε; at d = 2
(T = 2), ε = 16, δ = 1e-5 its ε is 18.42 > 16.  Cheap: no runs."""

from __future__ import annotations

import math

import pytest

from verify import mutants, registry
from verify.papers import pagan
from verify.privacy import gaussian_epsilon_interval

CID = "pagan.algorithm3.privacy.large_eps"


def _mutant(name):
    registry.load_all()
    (m,) = [m for m in mutants.theory_mutants(registry.REGISTRY[CID]) if m.name == name]
    return m


def test_the_counterexample_recomputed_three_ways():
    r = pagan.alg3_large_eps_point(2, 16.0, 1e-5)
    z = 2 * math.sqrt(math.log(2 / 1e-5)) / 16  # T·√(log(T/δ))/ε at T = 2
    assert r["rounds"] == 2 and r["noise_multiplier"] == pytest.approx(z, rel=1e-12)
    assert r["eps_lo"] > 16.0 and r["eps_lo"] == pytest.approx(18.4192, abs=1e-4)
    # the PLD of the two composed rounds agrees, and even its optimistic (lower) end breaks the promise
    lo, hi = gaussian_epsilon_interval(z, 1e-5, 2)
    assert 16.0 < lo <= r["eps_hi"] and r["eps_lo"] <= hi


def test_the_claim_is_violated_and_names_the_smallest_point():
    out = pagan.algorithm3_large_eps("quick", 0)
    ex = out.counterexample
    assert out.verdict == "violated" and (ex["d"], ex["epsilon"], ex["delta"]) == (2, 16.0, 1e-5)
    assert out.numbers["points_undecided"] == 0
    # and the main claim's grid (ε ≤ 4) keeps the promise at the same d: the failure is at large ε only
    assert pagan.alg3_large_eps_point(2, 4.0, 1e-5)["eps_hi"] < 4.0


def test_a_calibration_with_ten_times_the_noise_holds_everywhere():
    """The check can say holds (refuting the mutant that multiplies the multiplier by 10)."""
    with _mutant("algorithm3_noise_multiplier:x10").apply():
        out = pagan.algorithm3_large_eps("quick", 0)
    assert out.verdict == "holds" and out.numbers["points_broken"] == 0


@pytest.mark.parametrize("name", sorted(pagan.ALG3_LARGE_EPS_STILL_FALSE))
def test_still_false_mutants_fail_at_their_declared_point(name):
    assert mutants.EQUIVALENT[(CID, name)].startswith("the mutated statement is still false")
    (d, e, dl), _ = pagan.ALG3_LARGE_EPS_STILL_FALSE[name]
    with _mutant(name).apply():
        r = pagan.alg3_large_eps_point(d, e, dl)
    assert r["decided"] and r["eps_lo"] > e, (name, r)
