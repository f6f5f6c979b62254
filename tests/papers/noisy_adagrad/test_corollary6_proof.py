"""Corollary 6's proof with k tracked (:mod:`verify.papers.noisy_adagrad.corollary6_proof`): the route grows like k,
the floor derived from the declared eq. (25) alone, the scaled cases, and the reasons declared for the mutants that
leave the statement false."""

import re

import pytest
import sympy as sp

from tests.papers.noisy_adagrad.support import check_quick, mutant_verdict
from tests.verify.evidence_support import lost_numbers
from theory import noisy_adagrad as tn
from verify import mutants, registry
from verify.papers.noisy_adagrad import corollary6_proof
from verify.runner import SerialRunner, using


# ---- noisy_adagrad.corollary6.proof_k ----------------------------------------------------------------------------
def test_corollary6_proof_k_route_grows_like_k_not_sqrt_k():
    out = check_quick("noisy_adagrad.corollary6.proof_k")
    assert out.verdict == "violated" and out.plots
    assert out.counterexample["k"] == 2 and out.counterexample["limit_k_to_infinity"] == "oo"
    assert out.counterexample["floor_over_rate"] == "sqrt(2)*C*L"
    assert out.numbers["min_relative_bound_minus_floor"] >= 0.0
    assert 0.85 < out.numbers["isotropic_slope_in_k"] < 1.05


def test_corollary6_proof_k_summary_and_points_keep_every_number_of_its_evidence():
    out = check_quick("noisy_adagrad.corollary6.proof_k")
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated (exact)") and "Θ(k)" in s
    assert [p["k"] for p in out.points if "k" in p] == [1, 2, 4, 8, 16]
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_corollary6_proof_k_floor_at_m_equal_T_is_linear_in_k():
    f = tn.corollary6_proof_floor().subs({tn.m_full: tn.T})
    assert sp.simplify(f - tn.C * tn.L * tn.k * sp.sqrt(sp.log(1 / tn.delta)) / (tn.epsilon * tn.n)) == 0


def test_corollary6_proof_k_main_text_with_k_turns_it():
    assert mutant_verdict("noisy_adagrad.corollary6.proof_k", "corollary6_rate:k") == "holds"


# the fixed cases at scales far from 1: a floor or an eq. (25) with exponents a quarter off fails there;
# the verdict stays violated through eq. (25)'s own floor (the mutated statement is still false, see
# the declared equivalents' tests in this file)
def _proof_k_with_exponents(fn: str, power):
    path = f"theory.noisy_adagrad.{fn}"
    original = getattr(tn, fn)
    mutated = mutants.mutate_value(original(), lambda e: e.xreplace({s: s ** sp.Rational(power)
                                                                   for s in e.free_symbols if s.is_positive}))
    registry.load_all()
    mutants.reset_caches()
    with using(SerialRunner()), mutants.substituted(path, lambda *a, **kw: mutated):
        return registry.REGISTRY["noisy_adagrad.corollary6.proof_k"].check("quick", 0)


def test_corollary6_proof_k_scaled_cases_hold_for_the_true_floor():
    cases = corollary6_proof.proof_route_scaled_cases()
    assert len(cases) == 27
    for case in cases:
        bound, floor, m = corollary6_proof.proof_route_sides(case)
        assert m == case["grads"].shape[0] - case["k"] + 1 and 0.0 < floor <= bound
    with pytest.raises(ValueError):
        corollary6_proof.proof_route_scaled_cases(k=5, T=4)


@pytest.mark.parametrize("fn, power", [("corollary6_proof_floor", "5/4"), ("theorem3_1_bound", "3/4")])
def test_corollary6_proof_k_scaled_cases_catch_exponents_a_quarter_off(fn, power):
    out = _proof_k_with_exponents(fn, power)
    assert out.numbers["declared_floor_ok"] == 0.0 and out.numbers["min_relative_bound_minus_floor_scaled"] < 0.0
    assert out.verdict == "violated" and out.numbers["eq25_floor_ok"] == 1.0

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
    return sp.simplify((floor / tn.corollary6_rate()).subs(tn.delta, sp.exp(-corollary6_proof._log_inv_delta)))


def test_eq25_floor_unmutated_is_the_declared_floor_at_m_equal_T_minus_k_plus_1():
    floor, lim, why = corollary6_proof.eq25_isotropic_floor()
    assert why == "" and lim == sp.oo
    declared = tn.corollary6_proof_floor().subs(tn.m_full, tn.T - tn.k + 1)
    at = {tn.delta: sp.exp(-corollary6_proof._log_inv_delta)}
    assert sp.simplify((floor - declared).subs(at)) == 0
    slack, where = corollary6_proof.eq25_isotropic_floor_slack(floor)
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
        floor, lim, why = corollary6_proof.eq25_isotropic_floor()
        slack, _ = corollary6_proof.eq25_isotropic_floor_slack(floor)
    assert why == "" and lim == sp.oo and slack >= 0.0
    assert sp.simplify(_ratio_on_family(floor) - ratio) == 0  # the ratio the declared reason states
    en = sp.Symbol("en", positive=True)
    assert sp.limit(ratio.subs({tn.k: en, tn.T: en**2}), en, sp.oo) == sp.oo


@pytest.mark.parametrize("name", FLOOR_MUTANTS)
def test_floor_mutants_leave_the_statement_and_eq25_floor_unchanged(name):
    statement, lemma = (tn.theorem3_1_bound(), tn.corollary6_rate()), tn.corollary6_proof_floor()
    floor0 = corollary6_proof.eq25_isotropic_floor()[0]
    with _mutant(name).apply():
        assert sp.simplify(tn.corollary6_proof_floor() - lemma) != 0  # the mutation is in force
        assert (tn.theorem3_1_bound(), tn.corollary6_rate()) == statement
        floor, lim, why = corollary6_proof.eq25_isotropic_floor()
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
        floor, lim, why = corollary6_proof.eq25_isotropic_floor()
        assert floor is None and lim is None and "free of η" in why
        registry.load_all()
        mutants.reset_caches()
        with using(SerialRunner()):
            out = registry.REGISTRY[CID].check("quick", 0)
    assert out.verdict == "inconclusive" and out.numbers["eq25_floor_ok"] == 0.0


def test_corollary6_proof_k_finding_is_in_regime_with_the_linear_k_repair():
    """The route exceeds the main text's √k at every k > 1 of the isotropic case (3.5× its k = 1 ratio at k = 16):
    in the regime; the repaired O(k) statement holds on the same isotropic values."""
    f = check_quick("noisy_adagrad.corollary6.proof_k").finding
    assert f is not None and f.scope == "in_regime"
    # the four k > 1 of the isotropic case and the two infinite limits (the floor's, eq. (25)'s own floor's)
    assert (f.region.explored, f.region.failing, f.region.edge) == (6, 6, "")
    assert f.at_paper_setting.fails and 3.0 < f.at_paper_setting.size < 4.0
    assert f.repair.verdict == "holds" and f.repair.source == "derived"
