"""Lemma 14 (contraction of the projection in a seminorm) and Theorem 15 (Davis–Kahan, eq. (37))
(:mod:`verify.papers.noisy_adagrad.structural_lemmas`): quick verdicts at seed 0, the pinned smallest
counterexample of Lemma 14, the tight pair of Theorem 15, and the declared mutant of each that moves its verdict."""

import math
import re

import numpy as np
import pytest
import sympy as sp

from tests.papers.noisy_adagrad.support import check_quick, mutant_verdict
from tests.verify.evidence_support import lost_numbers
from theory import noisy_adagrad as tn
from verify import mutants, registry
from verify.papers.noisy_adagrad import structural_lemmas
from verify.runner import SerialRunner, using


# ---- noisy_adagrad.lemma14 ---------------------------------------------------------------------------------------
def test_theorem15_summary_and_points_keep_every_number_of_its_evidence():
    out = structural_lemmas.theorem15("quick", 0)
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("holds (exact): (37) with constant 1 is never exceeded")
    assert [p["size"] for p in out.points if p["part"] == "adversarial"] == ["2×2", "3×3"]
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_lemma14_summary_and_points_keep_every_number_of_its_evidence():
    out = structural_lemmas.lemma14("quick", 0)
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated (exact)") and "(8/3 > 2)" in s and "never exceed 1" in s
    assert [p["seminorm"] for p in out.points[1:]] == list(structural_lemmas.LEMMA14_KINDS)
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_lemma14_violated_smallest_linf_case_exact():
    ex = tn.lemma14_linf_example()
    assert ex["s_star"] == sp_rational(1, 3) and ex["lhs"] == sp_rational(8, 3) and ex["rhs"] == 2
    # the example's projection is the unique minimiser of ‖x − s·(1, 2)‖∞ over the line, x = (1, 0)
    s = np.linspace(-3, 3, 6001)
    dist = np.maximum(np.abs(1 - s), 2 * np.abs(s))
    s_star = float(ex["s_star"])
    assert abs(s[np.argmin(dist)] - s_star) <= 1e-3
    assert np.all(dist[np.abs(s - s_star) > 1e-3] > 2 / 3)
    lhs, rhs = tn.lemma14_sides("linf", np.eye(2), [1.0, 0.0], [-10.0, -20.0], [10.0, 20.0], 0.45)
    assert lhs == pytest.approx(8 / 3, rel=1e-12) and rhs == pytest.approx(2.0, rel=1e-12)


def test_lemma14_quick_verdict_and_quadratic_reading():
    out = check_quick("noisy_adagrad.lemma14")
    assert out.verdict == "violated" and out.plots
    assert out.counterexample["lhs"] == "8/3" and out.counterexample["rhs"] == "2"
    assert out.numbers["quad_holds"] == 1.0 and out.numbers["worst_ratio_quad"] <= 1 + 1e-9
    assert out.numbers["worst_ratio_l4"] > 1.01  # a strictly convex norm: unique projections


def test_lemma14_triangle_constant_2_turns_it():
    assert mutant_verdict("noisy_adagrad.lemma14", "lemma14_sides:rhs*2") == "holds"


def sp_rational(p, q):
    return sp.Rational(p, q)


# ---- noisy_adagrad.theorem15 -------------------------------------------------------------------------------------
def test_theorem15_tight_pair_attains_constant_one():
    A, B = structural_lemmas.dk_tight(0.4)
    lhs, rhs = tn.davis_kahan_sides(A, B, 1, 2)
    assert lhs == pytest.approx(math.sin(0.4), rel=1e-12) and rhs == pytest.approx(math.sin(0.4), rel=1e-12)


def test_theorem15_holds_quick():
    out = check_quick("noisy_adagrad.theorem15")
    assert out.verdict == "holds" and out.plots
    assert out.numbers["min_slack_rounding_units"] >= 0 and out.numbers["worst_ratio_adversarial"] > 0.99
    assert out.numbers["ascending_reading_violations"] > 0


def test_theorem15_half_constant_is_refuted():
    assert mutant_verdict("noisy_adagrad.theorem15", "davis_kahan_sides:rhs*0.5") == "violated"


@pytest.fixture(scope="module")
def lemma14_quick():
    return structural_lemmas.lemma14("quick", 0)


def test_lemma14_finding_is_a_misprint_the_inner_product_seminorms_hold(lemma14_quick):
    """Lemma 14 fails only for seminorms without an inner product; at its use (the H_t-seminorm) it holds, and the
    repair the proof gives (quadratic seminorms √(zᵀHz)) holds on the same run: a misprint."""
    f = lemma14_quick.finding
    assert f is not None and f.scope == "misprint"
    assert f.region.explored == 6 * 400 + 1 and f.region.failing == 161  # quick, seed 0: ℓ_q families + the pin
    assert "quadratic seminorms 0/400" in f.region.text
    assert not f.at_paper_setting.fails and f.at_paper_setting.size <= 1 + 1e-9
    assert f.repair.source == "paper" and f.repair.verdict == "holds"


def test_theorem15_violation_carries_a_finding_without_repair():
    """Theorem 15 holds; halving the constant of (37) makes the tight pair fail: the finding counts the failing
    (A, B, i, j), says it fails at the theorem's use, and gives no repair (Davis–Kahan is true)."""
    (c,) = registry.select(["noisy_adagrad.theorem15"])
    (m,) = [m for m in c.mutants if m.name == "davis_kahan_sides:rhs*0.5"]
    mutants.reset_caches()
    with using(SerialRunner()), m.apply():
        out = c.check("quick", 0)
    f = out.finding
    assert out.verdict == "violated" and f is not None and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing) == (4255, 871) and f.at_paper_setting.fails  # quick, seed 0
    assert f.repair is None and "Davis–Kahan" in f.no_repair_reason
