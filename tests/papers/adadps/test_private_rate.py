"""Eq. (39) (:mod:`verify.papers.adadps.private_rate`, ``adadps.eq39``): the pinned smallest counterexample, the
corrected-rate mutant, and the exact sign decision behind the declared equivalent mutants."""

import logging
import re

import pytest

from tests.papers.adadps.support import claim_record, mutant_verdicts
from tests.verify.evidence_support import lost_numbers
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


@pytest.fixture(scope="module")
def eq39_outcome():
    """adadps.eq39 at quick, seed 0, checked once for the finding's tests."""
    return claim_record("adadps.eq39").check("quick", 0)


def test_eq39_finding_is_in_regime_over_the_S_A_grid_and_the_limits(eq39_outcome):
    """The substituted bound over the stated rate grows linearly in S_A: past 10× its S_A = 1 value at the 28
    largest of the 41 grid points (S_A ≥ ~20), and unbounded as S_A → ∞ (the three other limits finite); no edge."""
    f = eq39_outcome.finding
    assert f.scope == "in_regime"
    reg = f.region
    assert (reg.explored, reg.failing, reg.edge) == (45, 29, "")
    assert "unbounded as S_A→∞" in reg.text and "finite as n→∞, ε→0, log(1/δ)→∞" in reg.text
    assert "grows linearly in S_A" in reg.text


def test_eq39_finding_size_at_the_imdb_experiment(eq39_outcome):
    """At S_A = d = 20,002 (IMDB logistic regression) the ratio is (1 + 1.5·d)/(5/2) = 12001.6 times its S_A = 1
    value, whatever n, ε and δ."""
    ps = eq39_outcome.finding.at_paper_setting
    assert ps.fails and ps.size == pytest.approx((1 + 1.5 * 20_002) / 2.5, rel=1e-12)
    assert "d = 20,002" in ps.where and "n = 25,000" in ps.where


def test_eq39_finding_repair_S_A_three_halves_holds(eq39_outcome):
    """The rate the substitution gives, S_A^{3/2}·√log(1/δ)/(nε), holds: every limit of the ratio finite (exact)."""
    rep = eq39_outcome.finding.repair
    assert rep.verdict == "holds" and rep.source == "derived"
    assert "S_A^{3/2}" in rep.statement and "[1.5, 2.5]" in rep.evidence


def test_eq39_finding_is_built_for_a_mutant_that_stays_violated():
    """A violated outcome under a declared equivalent mutant (eq. (38)'s exponent ¾) still carries a finding."""
    fns = {m[0]: m[2] for m in mutants.THEORY_MUTATIONS}
    with mutants.theory_mutant("theory.adadps.theorem2_bound", "pow0.75", "", fns["pow0.75"]).apply():
        out = claim_record("adadps.eq39").check("quick", 0)
    assert out.verdict == "violated" and out.finding is not None and out.finding.region.failing > 0


def test_eq39_summary_and_one_point_per_limit_keep_every_number_of_its_evidence():
    """Eq. (39)'s evidence reads as one short sentence (the unbounded limit, the unit-constant counterexample) and
    points (one per limit, the ratio, the counterexample); no number of the evidence is lost."""
    out = private_rate.eq39("quick", 0)
    assert out.summary.startswith(out.verdict) and len(out.summary) <= 240
    assert not re.search(r"\. [A-Z]", out.summary)  # one sentence ("eq. (38)" is not a full stop)
    limits = [p for p in out.points if "limit" in p]
    assert len(limits) == 4 and [p["limit"] for p in limits if p["bounded"] is False] == ["S_A→∞"]
    assert lost_numbers(out.evidence, out.summary, out.points) == []
    assert lost_numbers(out.evidence, "", out.points[:1])  # the summary and the other rows carry numbers
