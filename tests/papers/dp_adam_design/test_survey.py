"""verify.papers.dp_adam_design.survey — §3's claims: post-processing's bias of v (§3.1, App. A), the zero-out
sensitivity of ḡ⊙ḡ, its tightness remark and the √2σ split (§3.2), zero-out vs replace-one for [ḡ, γḡ²] (§3.2) and
the batch-size-free sensitivity of Adam's update (§3.4.1): quick verdicts at seed 0, the numbers they follow from,
and negative controls (a wrong closed form or a kernel fault gives violated)."""

import math
import re

import numpy as np
import pytest

from tests.papers.dp_adam_design._support import assert_decided_finding, theory_mutant
from tests.verify.evidence_support import lost_numbers
from theory import dp_adam_design as td
from theory import numeric
from verify import mutants
from verify.papers.dp_adam_design import survey
from verify.registry import REGISTRY, Figure, load_all


def test_section32_zero_out_vs_replace_holds_quick():
    out = survey.section3_2_zero_out_vs_replace("quick", 0)
    assert out.verdict == "holds" and out.counterexample is None and out.decisions == []
    assert out.numbers["gamma_star_times_C"] == pytest.approx(math.sqrt((11 + 5 * math.sqrt(5)) / 8))
    assert out.numbers["max_abs_rel_gap"] <= 1e-8 and out.numbers["max_replace_excess_below_star"] <= 1e-8
    assert out.numbers["min_zero_out_excess"] > 0.03  # zero-out: strictly more than ḡ's sensitivity
    # outside the reading: replace-one with B = 2 costs more than ḡ already at γC = 0.25 (√(1 + 0.25²) − 1)
    assert out.numbers["replace_B2_excess_at_small_gamma"] == pytest.approx(math.sqrt(1 + 0.25**2) - 1, rel=1e-6)


def test_section32_zero_out_vs_replace_threshold_closed_form():
    assert float(td.replace_gamma_max().subs(td.C, 1)) == pytest.approx(1.6650953383927807)
    e = td.pair_sensitivity_replace_one()
    assert float(e.subs({td.gamma: 1.6, td.C: 1})) == 2.0 and float(e.subs({td.gamma: 1.7, td.C: 1})) > 2.0


@pytest.mark.parametrize("path", ["replace_gamma_max", "pair_sensitivity_zero_out"])
def test_section32_zero_out_vs_replace_catches_a_wrong_constant(path):
    with theory_mutant(path, "x0.1").apply():
        out = survey.section3_2_zero_out_vs_replace("quick", 0)
    assert out.verdict == "violated" and out.counterexample is not None
    f = assert_decided_finding(out)
    assert f.region.explored == out.numbers["cases"] and f.region.failing == out.numbers["cases_bad"]


@pytest.mark.parametrize("name", ["pow1.25", "pow0.75"])
def test_section32_bound_checks_the_split_identity_away_from_sigma_one(name):
    out = survey.section3_2("quick", 0)
    assert out.verdict == "holds" and out.numbers["split_identity_relative_gap"] <= 16 * 2.0**-52
    with theory_mutant("ime_noise_multipliers", name).apply():  # √2·σ^p: the same number at σ = 1
        out = survey.section3_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["split_identity_relative_gap"] > 0.1
    f = assert_decided_finding(out, "1/σ₁² + 1/σ₂² = 1/σ²")
    assert f.region.failing == 1  # the bound, its attainment and the PLD check at σ = 1 hold


def test_section31_bias_holds(quick):
    out = quick("section3_1")
    assert out.verdict == "holds" and out.counterexample is None
    assert abs(out.numbers["excess_over_s2_final_identity"] - out.numbers["closed_form_final_identity"]) < 0.1
    assert isinstance(out.plots[0], Figure)


def test_section31_negative_control_catches_a_wrong_bias(monkeypatch):
    monkeypatch.setattr(td, "postprocessing_bias", lambda: 2 * (1 - td.beta2**td.t) * td.s**2)
    out = survey.section3_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["noise"] == "identity"
    f = assert_decided_finding(out, "identity noise")
    assert f.region.explored == 7  # six tests and the exact agreement of App. A's forms


def test_section32_bound_holds_and_is_attained(quick):
    out = quick("section3_2")
    assert out.verdict == "holds" and out.counterexample is None and out.decisions == []
    assert out.numbers["min_slack_rounding_units"] >= -1 and out.numbers["max_adversarial_ratio"] <= 1 + 1e-12
    assert out.numbers["equal_axis_ratio_min"] == pytest.approx(1.0)
    assert out.numbers["privacy_split_matches"] == 1.0


def test_section32_tightness_remark_is_violated_by_the_pinned_counterexample(quick):
    """The remark 'tight when all records are equal' fails for equal dense records: ratio 1/√d (B = 1, d = 2)."""
    out = quick("section3_2_tight_equal")
    assert out.verdict == "violated"
    ce = out.counterexample
    assert ce["B"] == 1 and ce["d"] == 2 and ce["ratio"] == pytest.approx(1 / math.sqrt(2))
    rec = np.array(ce["records"])
    assert survey.squares_sensitivity(rec, ce["clip_norm"]) == pytest.approx(ce["bound"] / math.sqrt(2), rel=1e-12)
    assert out.numbers["equal_dense_ratio_min"] == pytest.approx(1 / 8)  # d = 64


def test_section32_tightness_finding_is_in_regime_with_the_exact_sensitivity_as_repair(quick):
    """The remark fails for every equal dense batch with d ≥ 2 (no edge: the generic case of §3.2's d-dimensional
    ḡ⊙ḡ), holds at the paper's own one-dimensional IME run (§5.1), and the exact sensitivity of an equal batch
    (the bound times ‖c‖₄²/C², attained by axis-aligned records) holds on the same points."""
    f = quick("section3_2_tight_equal").finding
    assert f is not None and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing, f.region.edge) == (128, 95, "")
    assert "d ≥ 2" in f.region.text and "0.7071" in f.region.text and "0.1250 at d = 64" in f.region.text
    s = f.at_paper_setting
    assert s.where.startswith("§5.1") and not s.fails and s.size == pytest.approx(1.0, abs=1e-13)
    assert "ratio 0.001 (1/√d)" in s.text  # §5.2's TinyBERT, d ≥ 10⁶
    assert f.repair.verdict == "holds" and f.repair.source == "derived"


def test_retired_section32_id_is_not_registered():
    load_all()
    assert "dp_adam_design.section3.2" not in REGISTRY


def test_section32_negative_control_catches_a_too_small_bound(monkeypatch):
    monkeypatch.setattr(td, "ime_sensitivity_squares", lambda: td.C**2 / td.B**2)
    out = survey.section3_2("quick", 0)
    assert out.verdict == "violated" and out.numbers["max_adversarial_ratio"] > 1.5


def test_section31_dpmf_decisions_use_the_appendix_sum(monkeypatch):
    """App. A's sum and the plotted recursion agree on a strategy's row norms; a sum with a doubled weight is
    refuted on a DP-MF noise (the identity noise's closed form is untouched)."""
    rows = np.linspace(0.5, 2.0, 40)
    for t in (1, 10, 40):
        assert survey.dpmf_bias_closed_form(rows, 0.95, 1.3, t) == pytest.approx(
            td.dpmf_bias_numeric(rows, 0.95, 1.3)[t - 1], rel=1e-12)
    monkeypatch.setattr(td, "postprocessing_bias_dpmf", lambda: 2 * td.sp.Sum(
        (1 - td.beta2) * td.beta2 ** (td.t - td.k) * td.s**2 * td.r[td.k], (td.k, 1, td.t)))
    out = survey.section3_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["noise"] != "identity"


def test_section32_tightness_counterexample_is_free_of_the_bound():
    """Why the bound's mutants are declared equivalent for tight_equal: at one B, equal dense and equal axis-aligned
    records have sensitivities in the ratio 1/√d, so no single bound value equals both."""
    B, C = 3, 1.0
    for dd in (2, 5, 16):
        dense = survey.squares_sensitivity(np.full((B, dd), C / math.sqrt(dd)), C)
        axis = survey.squares_sensitivity(np.tile(np.eye(dd)[0] * C, (B, 1)), C)
        assert dense / axis == pytest.approx(1 / math.sqrt(dd), rel=1e-12)
    assert "stays false" in mutants.EQUIVALENT[("dp_adam_design.section3.2.tight_equal", "ime_sensitivity_squares:x10")]


def test_section31_recursion_must_agree_with_the_appendix_sum(monkeypatch):
    """A recursion off by 10% (the plotted curve) no longer matches App. A's sum: violated, with both numbers."""
    true = td.dpmf_bias_numeric
    monkeypatch.setattr(td, "dpmf_bias_numeric", lambda *a: 1.1 * true(*a))
    out = survey.section3_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["recursion"] == pytest.approx(
        1.1 * out.counterexample["sum"], rel=1e-9)


def test_section3_4_1_one_example_update_is_the_closed_form_for_every_batch_size():
    """The paper's construction at t = 1 (so 1 − β₂ᵗ = 1 − β₂ and the closed form is exactly 1): Adam's first
    update is sign(g)·lr whatever B; at t = 3, β₂ = 0.5 it is √(1 − 1/8)/√(1/2) = √(7/4)."""
    for B in (1, 16, 1024):
        assert survey.s341_update(B, 1, 0.9, 0.5, True) == pytest.approx(1.0, rel=1e-15)
        assert survey.s341_update(B, 3, 0.5, 0.5, True) == pytest.approx(math.sqrt(7 / 4), rel=1e-14)
        assert survey.s341_update(B, 3, 0.5, 0.5, False) == 0.0  # the zero-out neighbour does not move
    assert float(numeric(td.update_sensitivity_one_example())(beta2=0.5, t=3)) == pytest.approx(math.sqrt(7 / 4))
    assert float(numeric(td.update_sensitivity_limit())(beta2=0.99)) == pytest.approx(10.0)
    out = survey.section3_4_1("quick", 0)
    assert out.verdict == "holds" and out.numbers["cases_bad"] == 0
    assert out.numbers["max_relative_spread_over_B"] < 1e-14


def test_section3_4_1_a_wrong_magnitude_is_violated_at_every_case_with_its_finding():
    """√((1 − β₂ᵗ)/(1 − β₂)) to the power 1.25 is off except where it is 1 (t = 1): every case with t > 1 fails, and
    the finding counts them over the whole grid."""
    with theory_mutant("update_sensitivity_one_example", "pow1.25").apply():
        out = survey.section3_4_1("quick", 0)
    f = assert_decided_finding(out, "β₂ = 0.9, t = 2")
    assert f.region.explored == out.numbers["cases"] == 3 * 5 * 4 * 2
    assert f.region.failing == out.numbers["cases_bad"] == 3 * 4 * 4 * 2  # t ∈ {2, 10, 100, 1000}

QUICK_SEED0 = {'section3_1': 'holds', 'section3_2': 'holds', 'section3_2_tight_equal': 'violated'}


@pytest.mark.parametrize("name", sorted(QUICK_SEED0))
def test_quick_verdicts_and_declared_tests(quick, name):
    """Every claim's quick verdict at seed 0, and its decisions fit its declared share of the family."""
    out = quick(name)
    assert out.verdict == QUICK_SEED0[name], out.evidence
    cid = next(c for c in REGISTRY.values() if c.check.__name__ == name and c.paper == "dp_adam_design")
    assert len(out.decisions) <= cid.tests
    if out.verdict != "holds" or out.decisions:
        assert out.evidence  # the decisive decision's phrase leads the evidence


@pytest.mark.parametrize("name", ["section3_1", "section3_2", "section3_2_zero_out_vs_replace", "section3_4_1"])
def test_evidence_is_a_short_summary_and_points_that_keep_every_number(quick, name):
    """The evidence reads as one short sentence (the verdict, the cases or tests that hold) and points (per test, or
    per group of exact cases, and the setting); no number of the evidence is lost."""
    out = quick(name)
    assert out.summary.startswith(out.verdict) and len(out.summary) <= 240
    assert not re.search(r"\. [A-Z]", out.summary) and "{" not in out.summary  # one sentence, no records
    assert len([p for p in out.points if "test" in p]) == len(out.decisions)
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []
    # and the check can fail: the summary alone loses numbers of the evidence
    assert lost_numbers(out.evidence, out.summary, [], out.decisions)
