"""Issue 22: the noisy_adagrad statements added to the ledger — quick verdicts at seed 0, pinned counterexamples,
and one declared mutant per claim that moves its verdict."""

import math

import numpy as np
import pytest

from theory import noisy_adagrad as tn
from verify import mutants, registry
from verify.runner import SerialRunner, using


def _check(cid: str):
    registry.load_all()
    return registry.REGISTRY[cid].check("quick", 0)


def _mutant_verdict(cid: str, name: str) -> str:
    registry.load_all()
    (c,) = registry.select([cid])
    (m,) = [m for m in c.mutants if m.name == name]
    mutants.reset_caches()
    with using(SerialRunner()), m.apply():
        return str(c.check("quick", 0).verdict)


# ---- noisy_adagrad.theorem3.1.gamma ------------------------------------------------------------------------------
def test_theorem3_1_gamma_is_violated_smallest_case_p2_k1():
    out = _check("noisy_adagrad.theorem3.1.gamma")
    assert out.verdict == "violated" and out.plots
    assert out.counterexample["p"] == 2 and out.counterexample["k"] == 1
    assert out.counterexample["gaps_at_solutions"] == [0.0]
    assert out.numbers["gaps_strictly_between_0_and_1"] == 0 and out.numbers["pairs_satisfying_hypothesis"] > 100
    exact = tn.theorem3_1_gamma_p2k1()
    assert set(exact["gaps"]) == {0}


def test_theorem3_1_gamma_rotated_oracle_breaks_hypothesis_by_its_gap():
    e1 = np.array([[1.0], [0.0]])
    a = 0.3
    vt = np.array([[math.cos(a)], [math.sin(a)]])
    assert tn.theorem3_1_assumption_residual(e1, vt) == pytest.approx(math.sin(a), abs=1e-15)
    assert tn.subspace_gap(e1, vt) == pytest.approx(math.sin(a), abs=1e-15)


def test_theorem3_1_gamma_mutant_dropping_the_hypothesis_turns_it():
    assert _mutant_verdict("noisy_adagrad.theorem3.1.gamma", "theorem3_1_assumption_residual:dropped") == "holds"


# ---- noisy_adagrad.corollary6.k ----------------------------------------------------------------------------------
def test_corollary6_k_main_text_and_appendix_disagree_first_at_k2():
    out = _check("noisy_adagrad.corollary6.k")
    assert out.verdict == "violated" and out.plots
    assert out.counterexample["k"] == 2 and out.counterexample["main_over_appendix"] == "sqrt(2)"
    assert out.numbers["main_over_appendix_k2"] == pytest.approx(math.sqrt(2))


def test_corollary6_k_main_text_without_sqrt_k_turns_it():
    assert _mutant_verdict("noisy_adagrad.corollary6.k", "corollary6_rate:no_k") == "holds"


# ---- noisy_adagrad.corollary6.proof_k ----------------------------------------------------------------------------
def test_corollary6_proof_k_route_grows_like_k_not_sqrt_k():
    out = _check("noisy_adagrad.corollary6.proof_k")
    assert out.verdict == "violated" and out.plots
    assert out.counterexample["k"] == 2 and out.counterexample["limit_k_to_infinity"] == "oo"
    assert out.counterexample["floor_over_rate"] == "sqrt(2)*C*L"
    assert out.numbers["min_relative_bound_minus_floor"] >= 0.0
    assert 0.85 < out.numbers["isotropic_slope_in_k"] < 1.05


def test_corollary6_proof_k_floor_at_m_equal_T_is_linear_in_k():
    import sympy as sp
    f = tn.corollary6_proof_floor().subs({tn.m_full: tn.T})
    assert sp.simplify(f - tn.C * tn.L * tn.k * sp.sqrt(sp.log(1 / tn.delta)) / (tn.epsilon * tn.n)) == 0


def test_corollary6_proof_k_main_text_with_k_turns_it():
    assert _mutant_verdict("noisy_adagrad.corollary6.proof_k", "corollary6_rate:k") == "holds"


# ---- noisy_adagrad.section4.1.sigma ------------------------------------------------------------------------------
def test_section4_1_sigma_holds_with_the_constants_it_needs():
    out = _check("noisy_adagrad.section4.1.sigma")
    assert out.verdict == "holds" and out.plots
    nb = out.numbers
    assert 1.0 < nb["c_b_min"] <= nb["c_b_max"] < 3.0  # σ_b needs a constant above 1
    assert nb["tail_slope_c_B_n"] == pytest.approx(-0.5, abs=1e-9)  # σ_B over-calibrated by √n
    assert nb["max_accountant_over_theorem10_multiplier"] <= 1.0
    for i in (0, 1):
        assert nb[f"direct{i}_eps_b_unit_constant"] > 2 * nb[f"direct{i}_eps_b"]  # the printed constant 1 fails


def test_section4_1_sigma_closed_limits():
    import sympy as sp

    from verify.papers import noisy_adagrad as vn
    c = vn.sec41_closed_constants()
    assert sp.simplify(c["K_b_delta0"] - 2 * sp.sqrt(2)) == 0
    assert sp.simplify(c["K_B_delta0"] - 2 * sp.sqrt(2) / sp.sqrt(tn.n)) == 0


def test_section4_1_sigma_exponent_mutant_of_sigma_b_refutes_it():
    registry.load_all()
    (c,) = registry.select(["noisy_adagrad.section4.1.sigma"])
    (m,) = [m for m in mutants.theory_mutants(c) if m.name == "sigma_b_calibration:pow0.75"]
    mutants.reset_caches()
    with using(SerialRunner()), m.apply():
        assert c.check("quick", 0).verdict == "violated"


# ---- noisy_adagrad.lemma14 ---------------------------------------------------------------------------------------
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
    out = _check("noisy_adagrad.lemma14")
    assert out.verdict == "violated" and out.plots
    assert out.counterexample["lhs"] == "8/3" and out.counterexample["rhs"] == "2"
    assert out.numbers["quad_holds"] == 1.0 and out.numbers["worst_ratio_quad"] <= 1 + 1e-9
    assert out.numbers["worst_ratio_l4"] > 1.01  # a strictly convex norm: unique projections


def test_lemma14_triangle_constant_2_turns_it():
    assert _mutant_verdict("noisy_adagrad.lemma14", "lemma14_sides:rhs*2") == "holds"


def sp_rational(p, q):
    import sympy as sp
    return sp.Rational(p, q)


# ---- noisy_adagrad.theorem15 -------------------------------------------------------------------------------------
def test_theorem15_tight_pair_attains_constant_one():
    from verify.papers import noisy_adagrad as vn
    A, B = vn.dk_tight(0.4)
    lhs, rhs = tn.davis_kahan_sides(A, B, 1, 2)
    assert lhs == pytest.approx(math.sin(0.4), rel=1e-12) and rhs == pytest.approx(math.sin(0.4), rel=1e-12)


def test_theorem15_holds_quick():
    out = _check("noisy_adagrad.theorem15")
    assert out.verdict == "holds" and out.plots
    assert out.numbers["min_slack_rounding_units"] >= 0 and out.numbers["worst_ratio_adversarial"] > 0.99
    assert out.numbers["ascending_reading_violations"] > 0


def test_theorem15_half_constant_is_refuted():
    assert _mutant_verdict("noisy_adagrad.theorem15", "davis_kahan_sides:rhs*0.5") == "violated"



# the fixed cases at scales far from 1 (issue 25): a floor or an eq. (25) with exponents a quarter off fails there;
# the verdict stays violated through eq. (25)'s own floor (the mutated statement is still false, see
# tests/verify/test_proof_k_equivalents.py)
def _proof_k_with_exponents(fn: str, power):
    import sympy as sp
    path = f"theory.noisy_adagrad.{fn}"
    original = getattr(tn, fn)
    mutated = mutants.mutate_value(original(), lambda e: e.xreplace({s: s ** sp.Rational(power)
                                                                   for s in e.free_symbols if s.is_positive}))
    registry.load_all()
    mutants.reset_caches()
    with using(SerialRunner()), mutants.substituted(path, lambda *a, **kw: mutated):
        return registry.REGISTRY["noisy_adagrad.corollary6.proof_k"].check("quick", 0)


def test_corollary6_proof_k_scaled_cases_hold_for_the_true_floor():
    from verify.papers import noisy_adagrad as na
    cases = na.proof_route_scaled_cases()
    assert len(cases) == 27
    for case in cases:
        bound, floor, m = na.proof_route_sides(case)
        assert m == case["grads"].shape[0] - case["k"] + 1 and 0.0 < floor <= bound
    with pytest.raises(ValueError):
        na.proof_route_scaled_cases(k=5, T=4)


@pytest.mark.parametrize("fn, power", [("corollary6_proof_floor", "5/4"), ("theorem3_1_bound", "3/4")])
def test_corollary6_proof_k_scaled_cases_catch_exponents_a_quarter_off(fn, power):
    out = _proof_k_with_exponents(fn, power)
    assert out.numbers["declared_floor_ok"] == 0.0 and out.numbers["min_relative_bound_minus_floor_scaled"] < 0.0
    assert out.verdict == "violated" and out.numbers["eq25_floor_ok"] == 1.0
