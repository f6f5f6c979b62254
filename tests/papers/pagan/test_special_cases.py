"""The rates' special cases (:mod:`verify.papers.pagan.special_cases`): eq. (7)'s Hölder chain, Theorem 1 with
C = I and p = ∞ as the DP-SGD rate, and §3.2's box.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from tests.papers.pagan.support import claim_by_id, generic_mutant, run_under
from theory import pagan as tp
from verify import decide
from verify.mutants import THEORY_MUTATIONS, mutate_value
from verify.papers.pagan import lower_bounds, special_cases
from verify.registry import Outcome


# --------------------------------------------------------------------------------------
# §3.2's box: the bound comparison part (exact)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("mutation", ["x0.1", "pow1.25", "pow0.75", None])
def test_section3_2_box_bound_part_can_fail(monkeypatch, mutation):
    """Unmutated, the exact part holds (ratio ≥ 1 at every d, ratio·log^{3/2} d/√d → ζ(3/2)) and the verdict is
    holds, the measured decisions reported beside it; theory.pagan.box_rate_ratio ×0.1 (below 1 at d = 5) or with
    every variable x -> x^{5/4} or x^{3/4} (limit ∞ or 0) makes the claim violated whatever the runs."""

    if mutation is not None:
        fn = next(m[2] for m in THEORY_MUTATIONS if m[0] == mutation)
        original = tp.box_rate_ratio
        monkeypatch.setattr(tp, "box_rate_ratio", lambda: mutate_value(original(), fn))
    out = special_cases.section3_2_box("quick", 0)
    lim = out.numbers["bound_ratio_limit_times_log_1.5_over_sqrt_d"]
    if mutation is None:
        assert lim == pytest.approx(float(sp.zeta(sp.Rational(3, 2))))
        assert out.verdict == "holds" and len(out.decisions) == 3
        assert out.numbers["measured_comparison_holds"] == int(decide.combine(out.decisions) == "holds")
        assert "information only" in out.evidence
        assert all(out.numbers[f"bound_ratio_d{d}"] >= 1.0 for d in (5, 10, 30))
    else:
        assert out.verdict == "violated"
        assert mutation != "x0.1" or out.counterexample["bound_ratio_below_1"]
        f = out.finding  # the statement's own example: it fails at the paper's setting
        assert f.scope == "in_regime" and f.at_paper_setting.fails and f.region.explored == 3 + 1
        assert f.repair is None and f.region.failing >= 1
        assert mutation != "x0.1" or f.at_paper_setting.size < 1
        assert mutation == "x0.1" or not (0.0 < lim < math.inf)



def test_eq7_holds_with_slack_above_rounding_tolerance():
    out = special_cases.eq7("quick", 0)
    assert isinstance(out, Outcome)
    f = out.numbers
    assert (f["min_relative_slack"] >= -f["rounding_tolerance"]) == (out.verdict == "holds")
    assert out.verdict == "holds"
    # the PASAN/PAGAN factor ratio grows with d (a positive log-log slope, below 1/2)
    assert 0 < f["ratio_slope_lo"] and f["ratio_slope_hi"] < 0.5



def test_exact_claims_are_reproducible_within_one_process():
    """Same seed ⇒ same numbers, also on a second call in the same process."""
    a, b = special_cases.eq7("quick", 3), special_cases.eq7("quick", 3)
    assert a.numbers == b.numbers and a.verdict == b.verdict
    c, d = lower_bounds.theorem4("quick", 3), lower_bounds.theorem4("quick", 3)
    assert c.numbers == d.numbers



def test_theorem1_with_identity_and_infinite_p_is_the_dp_sgd_rate():


    subs = {tp.tr_Cinv: tp.d, tp.diam_C: tp.diam2, tp.R_std: 0, tp.G_2p: tp.G_inf}
    lim = sp.limit(tp.theorem1_bound().subs(subs), tp.p, sp.oo)
    assert sp.simplify(lim - tp.diam2 * tp.G_inf * sp.sqrt(tp.d * sp.log(1 / tp.delta)) / (tp.n * tp.epsilon)) == 0
    out = special_cases.theorem1_dp_sgd("quick", 0)
    assert out.verdict == "holds" and out.numbers["symbolic_agreements"] == 2 and out.numbers["radius_limit_is_2G"]



def test_theorem1_dp_sgd_catches_a_rate_off_by_a_factor(monkeypatch):

    real = tp.standard_dp_sgd_rate
    monkeypatch.setattr(tp, "standard_dp_sgd_rate", lambda: 2 * real())
    out = special_cases.theorem1_dp_sgd("quick", 0)
    assert out.verdict == "violated" and out.counterexample is not None
    f = out.finding  # both symbolic forms and the numeric agreement fail; the radius (not the rate) holds
    assert f.scope == "in_regime" and (f.region.explored, f.region.failing) == (4, 3) and f.repair is None


def test_eq7_a_broken_chain_is_violated_with_its_finding():
    """The Hölder chain ×10 (generic mutant) breaks an inequality: violated, and §6.1's profile (d = 100) is
    evaluated exactly in the finding."""
    out = run_under(claim_by_id("pagan.eq7"), generic_mutant("pagan.eq7", "holder_chain:x10"))
    assert out.verdict == "violated"
    f = out.finding
    assert f.scope == "in_regime" and f.region.explored == 5 and f.region.failing >= 1 and f.repair is None
    assert f.at_paper_setting.where.startswith("§6.1") and math.isfinite(f.at_paper_setting.size)
