"""Theorem 3 (:mod:`verify.papers.pagan.theorem3`): its empty interval and its still-false mutants, the repair and
the corrected reading ``pagan.theorem3.floor``, the runs' decision, the sample-size reconstruction and the finding.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import kernels
import kernels.moments
from tests.papers.pagan.support import claim_by_id, generic_mutant, run_under
from tests.verify.evidence_support import lost_numbers
from theory import numeric
from theory import pagan as tp
from verify import mutants, registry
from verify.mutants import substituted
from verify.papers.pagan import theorem3

THM3 = "pagan.theorem3"


# --------------------------------------------------------------------------------------
# pagan.theorem3
# --------------------------------------------------------------------------------------
def _thm3_equivalents():
    registry.load_all()
    return sorted(name for (cid, name) in mutants.EQUIVALENT if cid == THM3)


def test_theorem3_declares_the_expected_still_false_equivalences():
    names = _thm3_equivalents()
    assert len(names) == 13
    assert all(mutants.EQUIVALENT[(THM3, n)].startswith("the mutated statement is still false") for n in names)
    # the one-sided directions are weaker_if, not declarations
    assert not {"theorem3_upper:x0.1", "theorem3_lower:x10", "theorem3_sample_size:x0.1"} & set(names)


@pytest.mark.parametrize("name", _thm3_equivalents())
def test_theorem3_mutated_statement_is_still_false_at_an_exact_counterexample(name):
    """Under the mutant (the same SymPy mutation verify.mutants applies), at d = 2 and σ = (1, 2^{-3/2}/5^k) for some
    k ≤ 12, the mutated left end of (10) exceeds the mutated right end for σ_2, in exact rational arithmetic; the
    mutated sample size stays finite (the statement is not made vacuous)."""
    m = generic_mutant(THM3, name)
    with m.apply():
        lower, upper, size, floor = tp.theorem3_lower(), tp.theorem3_upper(), tp.theorem3_sample_size(), \
            tp.theorem3_floor()
        found = None
        for k in theorem3.THM3_EMPTY_SCALES:
            s2 = sp.Integer(2) ** sp.Rational(-3, 2) / 5**k
            at = {tp.sigma_j: s2, tp.d: 2}
            lo, up = sp.nsimplify(lower.subs(at)), sp.nsimplify(upper.subs(at))
            if bool(sp.simplify(lo - up) > 0):
                found = (k, lo, up)
                break
        assert found is not None, name
        at_n = {"beta": 0.1, "delta": 1e-5, "epsilon": 1.0, "r": 1.0, "T": 2, "d": 2}
        n_req = float(size.subs({s: at_n[s.name] for s in size.free_symbols}))
        assert math.isfinite(n_req) and n_req > 0
        assert float(floor.subs(tp.T, 2)) > 0
        # the claim's own exact search finds it too (via theory.pagan.theorem3_lower/upper, mutated)
        assert theorem3.thm3_empty_interval() is not None


def test_theorem3_repair_mutant_makes_the_interval_nonempty_and_the_check_hold():
    c = claim_by_id(THM3)
    (m,) = [m for m in c.mutants if m.name == "theorem3_upper:2max(σ_j,d^-3/2)"]
    with m.apply():
        assert theorem3.thm3_empty_interval() is None
    out = run_under(c, m)
    assert out.verdict == "holds"
    assert len(out.decisions) == len(theorem3.THM3_GRIDS["quick"]["configs"])
    assert all(str(d.verdict) == "holds" for d in out.decisions)


def test_theorem3_runs_decision_can_fail():
    """With a non-empty interval that is not below the floor but that Algorithm 3's output often misses (right end
    max(σ_j, d^{-3/2}) ≥ 2^{-T}, half the corrected one), no exact refutation stands and the runs decide: violated."""
    c = claim_by_id(THM3)

    def upper():
        return sp.Max(tp.sigma_j, tp.d ** sp.Rational(-3, 2))

    m = mutants.Mutant("narrow", "", "theory", lambda: substituted("theory.pagan.theorem3_upper", upper))
    out = run_under(c, m)
    assert out.verdict == "violated" and out.decisions
    assert any(str(d.verdict) == "violated" for d in out.decisions)
    assert [p["verdict"] for p in out.points] == [str(d.verdict) for d in out.decisions]
    assert out.summary.startswith("violated (no exact refutation; runs decided): the interval of (10) is never empty")
    assert "the runs decide, one test per profile" in out.summary
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


# --------------------------------------------------------------------------------------
# one-sided exponent mutants declared "only weaker" (pagan.theorem4.risk.d3, now violated, declares its
# theorem4_condition:pow0.75 still false instead: tests/papers/pagan/test_lower_bounds.py)
# --------------------------------------------------------------------------------------
def test_theorem3_floor_lower_pow125_is_only_smaller():
    name = "theorem3_lower:pow1.25"
    registry.load_all()
    assert mutants.EQUIVALENT[("pagan.theorem3.floor", name)].startswith("only weaker")
    m = generic_mutant("pagan.theorem3.floor", name)
    with m.apply():
        mutated = getattr(tp, "theorem3_lower")()
    f_mut = sp.lambdify((tp.sigma_j, tp.d), mutated)
    f_org = sp.lambdify((tp.sigma_j, tp.d), tp.theorem3_lower())
    for d in (1, 2, 3, 10, 100, 10**4):
        for s in np.concatenate([10 ** np.linspace(-8, 0, 81), [1.0]]):
            assert f_mut(s, d) <= f_org(s, d) * (1 + 1e-15)
    assert f_mut(0.5, 10) < f_org(0.5, 10)  # and strictly somewhere


# --------------------------------------------------------------------------------------
# Theorem 3
# --------------------------------------------------------------------------------------
def test_theorem3_floor_counterexample_pinned():
    """Pinned: d = 2, σ = (1, 0.1), Gaussian (r = 1), n from the theorem: σ̂_2 ≥ 2^{-T} = 1/4 > 2σ_2 in every run."""
    d, sigma = 2, np.array([1.0, 0.1])
    n = theorem3.thm3_sample_size(d)
    assert kernels.moments.rounds_for(d) == 2
    for seed in range(3):
        rng = np.random.default_rng(seed)
        Z = rng.standard_normal((n, d)) * sigma
        sh = kernels.moments.second_moment_estimate(Z, r=1.0, epsilon=1.0, delta=1e-5, rng=rng)["sigma_hat"]
        assert sh[1] >= 0.25 > 2 * sigma[1]
        assert float(numeric(tp.theorem3_lower())(sigma_j=sigma[1], d=d)) <= sh[1]  # the lower half holds
        assert sh[1] <= 2 * max(sigma[1], d**-1.5)  # the corrected reading holds


def test_theorem3_empty_interval_counterexample_pinned():
    """Pinned (exact): d = 2, σ_2 = 2^{-3/2}/5 < d^{-3/2}/4: ½·max(σ_2, d^{-3/2}) = 2^{-5/2} > 2σ_2."""
    ex = theorem3.thm3_empty_interval()
    assert ex["d"] == 2 and ex["coordinate"] == 2
    s2 = 2**-1.5 / 5
    assert ex["sigma"][1] == pytest.approx(s2)
    assert ex["lower"] == pytest.approx(2**-2.5) and ex["upper"] == pytest.approx(2 * s2)
    assert ex["lower"] > ex["upper"]


def test_theorem3_quick_verdicts_literal_and_corrected():
    out = theorem3.theorem3("quick", 0)
    f = out.numbers
    assert out.verdict == "violated" and not out.decisions  # exact
    assert out.counterexample["d"] == 2 and out.counterexample["lower"] > out.counterexample["upper"]
    assert f["failure_rate_1_0.1_d2"] == 1.0  # the floor breaks the upper half in every run
    assert f["failure_rate_j^-1.5_d10"] <= theorem3.THM3_BETA
    assert f["gaussian_moment_ratio_r2"] <= 1.0
    assert f["plugin_factor_ratio_max"] <= f["plugin_factor_ratio_bound"]
    # the evidence reads as its exact verdict and one point per case; no number of it is lost
    assert out.summary.startswith("violated (exact): at d=2") and "runs (reported)" not in out.summary
    assert [p["case"] for p in out.points][0] == "exact search"
    assert len(out.points) == 1 + len(theorem3.THM3_GRIDS["quick"]["configs"])
    assert {p["verdict"] for p in out.points[1:]} == {"reported", "violated (exact: floor above 2·min σ_j)"}
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []
    cor = theorem3.theorem3_floor("quick", 0)
    assert len(cor.decisions) == len(theorem3.THM3_GRIDS["quick"]["configs"])
    assert cor.verdict == "holds" and all(str(d.verdict) == "holds" for d in cor.decisions)


def test_theorem3_sample_size_reconstruction_is_monotone():
    f = numeric(tp.theorem3_sample_size())
    base = dict(T=5, beta=0.1, d=10, delta=1e-5, epsilon=1.0, r=1.0)
    n0 = float(f(**base))
    # the T² reading of line 5: T outside the root
    assert n0 == pytest.approx(1000 * math.log(80 / 0.1) * 5 * math.sqrt(10 * math.log(5 / 1e-5)))
    assert float(f(**dict(base, epsilon=0.5))) == pytest.approx(2 * n0)
    assert float(f(**dict(base, beta=0.01))) > n0 and float(f(**dict(base, d=20))) > n0


@pytest.fixture(scope="module")
def theorem3_outcome():
    return theorem3.theorem3("quick", 0)


def test_theorem3_finding_is_confined_to_coordinates_below_half_the_floor(theorem3_outcome):
    f = theorem3_outcome.finding
    assert theorem3_outcome.verdict == "violated" and f.scope == "boundary"
    assert f.region.edge == "some σ_j < d^{-3/2}/2"
    assert (f.region.explored, f.region.failing, f.region.failing_on_edge, f.region.holding_off_edge) == (5, 3, 3, 2)
    # §6.1's profile (d = 100, σ_j = j^{-3/2}): floor 2^-10 against 2·100^{-3/2}
    assert not f.at_paper_setting.fails and f.at_paper_setting.size == pytest.approx(2.0**-10 / 2e-3)
    assert f.repair.verdict == "holds" and "2·max(σ_j, d^{-3/2})" in f.repair.statement


def test_theorem3_edge_names_the_profiles_that_fail():
    assert theorem3._thm3_below_floor(np.array([1.0, 0.1]))
    assert theorem3._thm3_below_floor(theorem3.thm3_sigma("j^-2", 10))
    assert not theorem3._thm3_below_floor(theorem3.thm3_sigma("j^-1.5", 10))


def test_theorem3_floor_runs_decision_can_fail_with_its_finding():
    """theorem3_lower ×10 puts the corrected interval's left end above most outputs: the runs refute it, and the
    finding counts the failing profiles; §6.1's d = 100 is evaluated exactly (the floor below the right end)."""
    c = claim_by_id("pagan.theorem3.floor")
    out = run_under(c, generic_mutant("pagan.theorem3.floor", "theorem3_lower:x10"))
    assert out.verdict == "violated"
    f = out.finding
    assert f.scope == "in_regime" and f.region.explored == len(out.decisions) and f.repair is None
    assert f.region.failing == sum(str(d.verdict) == "violated" for d in out.decisions) >= 1
    assert f.at_paper_setting.where.startswith("§6.1") and not f.at_paper_setting.fails
    assert 0 < f.at_paper_setting.size < 1
