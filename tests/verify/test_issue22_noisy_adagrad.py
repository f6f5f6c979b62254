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
