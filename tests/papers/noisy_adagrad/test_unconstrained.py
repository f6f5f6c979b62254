"""Theorem 5.1, unconstrained DP-GD (:mod:`verify.papers.noisy_adagrad.unconstrained`): excess risk flat in p on
the benign and the worst-case family, the privacy half decided exactly at several L, the scaled point ‖θ*‖ = 10⁴
that sees the bound's degree in ‖θ*‖, and the negative controls."""

import re

import numpy as np
import pytest
import sympy as sp

from dpvalidate import InvalidParameter
from kernels import noisy_adagrad as kn
from tests.verify.evidence_support import lost_numbers
from theory import noisy_adagrad as tn
from verify import decide
from verify.mutants import THEORY_MUTATIONS, theory_mutant
from verify.papers.noisy_adagrad import unconstrained

from .support import memoised_quick


@pytest.fixture(scope="module")
def quick():
    return memoised_quick(unconstrained)


def test_theorem51_summary_and_points_keep_every_number_of_its_evidence(quick):
    out = quick("theorem5_1")
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("holds: eq. (14)")
    assert [p["verdict"] for p in out.points] == [str(d.verdict) for d in out.decisions]
    benign = [p["p"] for p in out.points if p["part"] == "benign low_rank_glm"]
    assert benign == list(unconstrained.THM51["quick"]["ps"])
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


def test_theorem51_holds_flat_in_p(quick):
    out = quick("theorem5_1")
    f = out.numbers
    assert out.verdict == "holds"
    assert all(f[k] < f["bound"] for k in f if k.startswith("excess_hi_p"))
    assert f["slope_in_p_upper"] <= unconstrained.THM51_SLOPE_MARGIN
    # 4 p, the slope, the scaled point ‖θ*‖ = THM51_SCALED_W, the aligned ranks and the exact privacy decisions of σ
    # (the runs' L and THM51_PRIVACY_L)
    assert len(out.decisions) == 7 + len(unconstrained.THM51_ADV_KS) + len(unconstrained.THM51_PRIVACY_L)
    assert f["scaled_theta_ratio"] == pytest.approx(f["excess_p5"] / f["bound"], rel=1e-9)
    assert out.evidence.startswith("holds (95% one-sided)")
    assert f["accountant_epsilon_of_sigma"] <= 1.0
    assert out.plots[0].name == "theorem5_1"


def test_theorem51_worst_case_family_is_decided_and_reported(quick):
    """The adversarial (coordinate-aligned) family is decided beside the benign one and the worst ratio is named."""
    out = quick("theorem5_1")
    f = out.numbers
    adv = [d for d in out.decisions if "coordinate-aligned" in d.control.test]
    assert len(adv) == len(unconstrained.THM51_ADV_KS) and all(str(d.verdict) == "holds" for d in adv)
    ratios = [f[f"aligned_ratio_k{k}"] for k in unconstrained.THM51_ADV_KS]
    benign = [f[k] / f["bound"] for k in f if k.startswith("excess_p")]
    assert f["worst_ratio"] == pytest.approx(max(ratios + benign))
    assert all(0 < r < 1 for r in ratios)
    assert "worst mean excess/bound over both families" in out.evidence


def test_aligned_glm_is_in_the_theorem_class():
    prob = kn.aligned_glm(n=10, p=6, k=3, w_norm=2.0)
    assert np.allclose(np.linalg.norm(prob.X, axis=1), 1.0) and prob.lipschitz == 1.0
    assert np.linalg.matrix_rank(prob.X) == 3 and np.allclose(prob.X @ prob.V @ prob.V.T, prob.X)
    assert prob.loss_value(prob.theta_true) == 0.0 and np.linalg.norm(prob.theta_true) == pytest.approx(2.0)

    with pytest.raises(InvalidParameter, match="k"):
        kn.aligned_glm(n=2, p=6, k=3)


def test_theorem51_negative_control_a_tenfold_smaller_bound_is_caught(monkeypatch):
    real = tn.theorem5_1_bound()
    monkeypatch.setattr(tn, "theorem5_1_bound", lambda: real / 10)
    out = unconstrained.theorem5_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["excess_lower_family"] > out.counterexample["bound"]


def test_theorem51_privacy_half_is_decided_and_holds():
    out = unconstrained.theorem5_1("quick", 0)
    priv = [d for d in out.decisions if "(ε, δ)-DP for T" in d.control.test]
    assert len(priv) == 1 and priv[0].verdict == decide.Verdict.HOLDS
    assert out.numbers["accountant_epsilon_of_sigma_hi"] <= 1.0
    assert out.numbers["accountant_epsilon_of_sigma_lo"] == pytest.approx(out.numbers["accountant_epsilon_of_sigma"],
                                                                           abs=1e-3)


def test_theorem51_a_tenfold_smaller_sigma_is_violated_by_its_privacy(monkeypatch):
    """theorem5_1_sigma ×0.1 used to survive (less noise only lowers the excess risk); its σ is not (1, 1e-5)-DP."""
    real = tn.theorem5_1_sigma()
    monkeypatch.setattr(tn, "theorem5_1_sigma", lambda: real / 10)
    out = unconstrained.theorem5_1("quick", 0)
    assert out.verdict == "violated"
    c = out.counterexample
    assert c["accountant_epsilon_lo"] > c["epsilon_promised"] == 1.0
    f = out.finding  # σ ×0.1: the privacy promise fails at L = 1 and at every other L, eq. (14) itself holds
    assert f is not None and f.scope == "in_regime" and f.repair is None
    assert f.region.explored == len(out.decisions)
    assert f.region.failing == 1 + len(unconstrained.THM51_PRIVACY_L) and "(ε, δ)-DP" in f.region.text


# ---------------------------------------------------------------------------------------------------------------
# Theorem 5.1's privacy half at gradient bounds L ≠ 1
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k, bad_L", [(sp.Rational(5, 4), 1e-2), (sp.Rational(3, 4), 1e2)])
def test_theorem51_a_wrong_power_in_sigma_is_violated_at_another_L(monkeypatch, k, bad_L):
    """σ with every variable to the power k: along T = ε²n² at L = 1 it is σ·√k (1.118σ, or 0.866σ, whose ε ≈ 0.88
    still keeps the promise ε = 1); the multiplier σn/L carries L^(k−1), so the promise fails at L = 0.01 (k = 5/4)
    or L = 100 (k = 3/4)."""
    real = tn.theorem5_1_sigma
    monkeypatch.setattr(tn, "theorem5_1_sigma", lambda: real().xreplace({s: s**k for s in real().free_symbols}))
    out = unconstrained.theorem5_1("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["L"] == bad_L and out.counterexample["accountant_epsilon_lo"] > 1.0
    priv = [d for d in out.decisions if "(ε, δ)-DP for T" in d.control.test]
    assert len(priv) == 1 and priv[0].verdict == decide.Verdict.HOLDS  # L = 1 alone cannot see it


def test_theorem51_privacy_at_other_L_holds_unmutated():
    out = unconstrained.theorem5_1("quick", 0)
    other = [d for d in out.decisions if "at L = " in d.control.test]
    assert len(other) == len(unconstrained.THM51_PRIVACY_L) and all(d.verdict == decide.Verdict.HOLDS for d in other)
    assert out.numbers["accountant_epsilon_of_sigma_hi_other_L"] == pytest.approx(
        out.numbers["accountant_epsilon_of_sigma_hi"], rel=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# noisy_adagrad.theorem5.1: the scaled point ‖θ*‖ = 10⁴
# ---------------------------------------------------------------------------------------------------------------
def test_theorem51_scaled_point_scales_excess_and_bound_alike_and_catches_a_wrong_degree():
    kw = dict(p=5, k=3, n=40, epsilon=1.0, delta=unconstrained.THM51_DELTA, trials=4, seed=0)
    one = unconstrained._thm51_task(**kw)
    big = unconstrained._thm51_task(**kw, w_norm=unconstrained.THM51_SCALED_W)
    s = unconstrained.THM51_SCALED_W
    np.testing.assert_allclose(big["excess"], s * one["excess"], rtol=1e-9)  # DP-GD is equivariant in θ*
    assert big["bound"] == pytest.approx(s * one["bound"], rel=1e-12)  # eq. (14) is degree 1 in ‖θ*‖_M
    assert decide.mean_at_most(big["excess"], big["bound"], what="t").verdict != decide.Verdict.VIOLATED
    pow075 = {m[0]: m[2] for m in THEORY_MUTATIONS}["pow0.75"]
    with theory_mutant("theory.noisy_adagrad.theorem5_1_bound", "pow0.75", "", pow075).apply():
        wrong = unconstrained._thm51_task(**kw, w_norm=s)
        at_one = unconstrained._thm51_task(**kw)
    assert wrong["bound"] < 0.25 * big["bound"] and at_one["bound"] > one["bound"]  # only the scaled point sees it
    assert float(np.mean(wrong["excess"])) > 2 * wrong["bound"]
