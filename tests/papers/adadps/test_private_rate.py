"""Eq. (39) (:mod:`verify.papers.adadps.private_rate`, ``adadps.eq39``): the pinned smallest counterexample, the
corrected-rate mutant, and the exact sign decision behind the declared equivalent mutants."""

import logging

from tests.papers.adadps.support import claim_record, mutant_verdicts
from verify import mutants
from verify.mutants import EQUIVALENT
from verify.papers.adadps import private_rate

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting's RDP warns at small noise multipliers


def test_eq39_is_violated_with_the_smallest_counterexample():
    """Substituting σ² and T into eq. (38) gives C²α + G·S_A times the stated rate: unbounded in S_A. With every
    constant 1 the ratio is 5/2 at S_A = 1 and first exceeds 10× that at S_A = 17 (53/2)."""
    out = claim_record("adadps.eq39").check("quick", 0)
    assert out.verdict == "violated"
    ce = out.counterexample
    assert ce["unbounded_in"] == ["S_A→∞"]
    assert ce["S_A"] == 17 and ce["ratio_at_S_A"] == "53/2" and ce["ratio_at_1"] == "5/2"
    assert out.numbers["ratio_at_smallest"] == 26.5


def test_eq39_the_corrected_rate_mutant_turns_it_to_holds():
    v = mutant_verdicts("adadps.eq39", {"theorem2_private_rate:S_A^(3/2)"})
    assert v == {"theorem2_private_rate:S_A^(3/2)": "holds"}


def test_eq39_positive_signs_by_monotonicity_and_can_refuse():
    import sympy as sp

    g = sp.Symbol("g_gamma", nonnegative=True)
    a = sp.Symbol("a", positive=True)
    assert (2 * (1 + g) ** sp.Rational(3, 4) - 1).is_positive is None  # what SymPy alone cannot say
    assert private_rate._eq39_positive(a * (2 * (1 + g) ** sp.Rational(3, 4) - 1)) is True
    assert private_rate._eq39_positive(2 * (1 + g) ** sp.Rational(3, 4) - 3) is None  # negative at g = 0
    assert private_rate._eq39_positive(3 - (1 + g) ** sp.Rational(3, 4)) is None  # positive at 0, decreasing: undecided
    assert private_rate._eq39_positive(-a) is False


def test_eq39_theorem2_bound_exponent_mutants_are_still_false():
    import sympy as sp


    fns = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}
    for name in ("pow0.75", "pow1.25"):
        assert EQUIVALENT[("adadps.eq39", f"theorem2_bound:{name}")].startswith("the mutated statement is still false")
        with mutants.theory_mutant("theory.adadps.theorem2_bound", name, "", fns[name]).apply():
            r = private_rate.eq39_ratio()
        assert r["limits"][("paper_T", "S_A→∞")] == sp.oo, name
