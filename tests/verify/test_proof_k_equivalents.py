"""noisy_adagrad.corollary6.proof_k (issue 25): the floor derived from the declared eq. (25) alone, and the reasons of
the still-false equivalences that rest on it, each evaluated under verify.mutants' own mutation."""

import pytest
import sympy as sp

from theory import noisy_adagrad as tn
from verify import mutants, registry
from verify.papers import noisy_adagrad as na
from verify.runner import SerialRunner, using

CID = "noisy_adagrad.corollary6.proof_k"
#: the mutants declared equivalent because eq. (25)'s own floor still outgrows the rate
FLOOR_MUTANTS = ("corollary6_proof_floor:sqrt_k", "corollary6_proof_floor:x10", "corollary6_proof_floor:pow1.25",
                 "corollary6_proof_floor:pow0.75")
EQ25_MUTANTS = ("theorem3_1_bound:x0.1", "theorem3_1_bound:pow1.25", "theorem3_1_bound:pow0.75")


def _mutant(name: str) -> mutants.Mutant:
    registry.load_all()
    (c,) = registry.select([CID])
    (m,) = [m for m in list(c.mutants) + mutants.theory_mutants(c) if m.name == name]
    return m


def _ratio_on_family(floor: sp.Expr) -> sp.Expr:
    """floor / corollary6_rate with δ = e^(−ℓ) (δ < 1)."""
    return sp.simplify((floor / tn.corollary6_rate()).subs(tn.delta, sp.exp(-na._log_inv_delta)))


def test_eq25_floor_unmutated_is_the_declared_floor_at_m_equal_T_minus_k_plus_1():
    floor, lim, why = na.eq25_isotropic_floor()
    assert why == "" and lim == sp.oo
    declared = tn.corollary6_proof_floor().subs(tn.m_full, tn.T - tn.k + 1)
    at = {tn.delta: sp.exp(-na._log_inv_delta)}
    assert sp.simplify((floor - declared).subs(at)) == 0
    slack, where = na.eq25_isotropic_floor_slack(floor)
    assert 0.0 < slack < 1.0 and where["bound"] > where["floor"] > 0.0


@pytest.mark.parametrize("name, ratio", [
    ("theorem3_1_bound:x0.1", tn.C * tn.L * sp.sqrt(tn.k) * sp.sqrt(tn.T - tn.k + 1) / (10 * sp.sqrt(tn.T))),
    ("theorem3_1_bound:pow1.25", tn.C ** sp.Rational(5, 4) * tn.L ** sp.Rational(9, 8) * tn.k ** sp.Rational(9, 16)
     * sp.sqrt(tn.T - tn.k + 1) / tn.T ** sp.Rational(11, 16)),
    ("theorem3_1_bound:pow0.75", tn.C ** sp.Rational(3, 4) * tn.L ** sp.Rational(7, 8) * tn.k ** sp.Rational(7, 16)
     * sp.sqrt(tn.T - tn.k + 1) / tn.T ** sp.Rational(5, 16)),
])
def test_eq25_mutants_still_false_floor_over_rate_diverges(name, ratio):
    with _mutant(name).apply():
        floor, lim, why = na.eq25_isotropic_floor()
        slack, _ = na.eq25_isotropic_floor_slack(floor)
    assert why == "" and lim == sp.oo and slack >= 0.0
    assert sp.simplify(_ratio_on_family(floor) - ratio) == 0  # the ratio the declared reason states
    en = sp.Symbol("en", positive=True)
    assert sp.limit(ratio.subs({tn.k: en, tn.T: en**2}), en, sp.oo) == sp.oo


@pytest.mark.parametrize("name", FLOOR_MUTANTS)
def test_floor_mutants_leave_the_statement_and_eq25_floor_unchanged(name):
    statement, lemma = (tn.theorem3_1_bound(), tn.corollary6_rate()), tn.corollary6_proof_floor()
    floor0 = na.eq25_isotropic_floor()[0]
    with _mutant(name).apply():
        assert sp.simplify(tn.corollary6_proof_floor() - lemma) != 0  # the mutation is in force
        assert (tn.theorem3_1_bound(), tn.corollary6_rate()) == statement
        floor, lim, why = na.eq25_isotropic_floor()
    assert floor == floor0 and lim == sp.oo and why == ""


@pytest.mark.parametrize("name", FLOOR_MUTANTS + EQ25_MUTANTS)
def test_still_false_mutants_are_declared_and_stay_violated(name):
    registry.load_all()
    (c,) = registry.select([CID])
    assert mutants.equivalence(c, _mutant(name), "violated").startswith("the mutated statement is still false")
    mutants.reset_caches()
    with using(SerialRunner()), _mutant(name).apply():
        out = c.check("quick", 0)
    assert out.verdict == "violated" and out.numbers["eq25_floor_ok"] == 1.0
    assert out.numbers["eq25_floor_over_rate_limit_is_infinite"] == 1.0


def test_eq25_with_noise_term_in_eta_squared_derives_no_floor_and_is_not_violated():
    # the noise term η²·noise_sum/(2T): no 1/η-term balances it, so no AM–GM floor free of η (and the declared
    # floor, derived for η·noise_sum, fails its cases)
    wrong = ((tn.C**2 / (2 * tn.eta * tn.T) + 4 * tn.eta / (3 * tn.T)) * tn.trG
             + tn.eta**2 / (2 * tn.T) * tn.noise_sum + tn.C * tn.L * tn.gamma)
    with mutants.substituted("theory.noisy_adagrad.theorem3_1_bound", lambda *a, **kw: wrong):
        floor, lim, why = na.eq25_isotropic_floor()
        assert floor is None and lim is None and "free of η" in why
        registry.load_all()
        mutants.reset_caches()
        with using(SerialRunner()):
            out = registry.REGISTRY[CID].check("quick", 0)
    assert out.verdict == "inconclusive" and out.numbers["eq25_floor_ok"] == 0.0
