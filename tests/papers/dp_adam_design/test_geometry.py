"""verify.papers.dp_adam_design.geometry — the floor of the quadratic example (§4.1), scale-then-privatize's steady
state and contraction (§4.3.1), its proportional geometry (§4.3.2) and the anisotropy of the per-update noise
(§4.5): quick verdicts at seed 0, the numbers they follow from, and negative controls."""

import re

import pytest

from kernels import faults
from tests.papers.dp_adam_design._support import assert_decided_finding, theory_mutant
from tests.verify.evidence_support import lost_numbers
from theory import dp_adam_design as td
from verify.papers.dp_adam_design import geometry
from verify.registry import REGISTRY


def test_section41_floor_holds_quick():
    out = geometry.section4_1("quick", 0)
    assert out.verdict == "holds" and len(out.decisions) == 4
    assert out.numbers["max_record_norm_over_C"] < 1 and out.numbers["floor"] == pytest.approx(100.0)
    assert out.numbers["vhat_coord2"] == pytest.approx(100.0025, rel=0.05)  # the floor: E ḡ² = 0.0025 ≪ 100
    assert out.numbers["lr_ratio_dp"] < 100 < out.numbers["lr_ratio_nonprivate"]


def test_section41_floor_catches_more_noise():
    with faults.inject(noise_scale=3.0):
        out = geometry.section4_1("quick", 0)
    f = assert_decided_finding(out, "coordinate")
    assert f.region.explored == 4  # the four per-coordinate tests


def test_section432_stp_geometry_holds_quick():
    out = geometry.section4_3_2("quick", 0)
    assert out.verdict == "holds" and len(out.decisions) == 8
    assert out.numbers["kappa"] == pytest.approx(4 / 3) and out.numbers["factor"] == pytest.approx(4 / 3)
    assert out.numbers["max_scaled_norm_over_C"] < 1 and out.numbers["g2_ratio_spread"] < 0.1


def test_section432_stp_geometry_catches_a_wrong_exponent():
    with theory_mutant("stp_private_gradient_factor", "pow1.25").apply():
        out = geometry.section4_3_2("quick", 0)
    f = assert_decided_finding(out, "E g̃²/E ḡ²")
    assert f.region.explored == 8 and f.region.failing == sum(str(d.verdict) == "violated" for d in out.decisions)


def test_section431_steady_state_and_one_round_error_are_tested():
    out = geometry.section4_3_1("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["one_round_error_minus_alpha_delta_rel"] <= 64 * 2.0**-52
    assert out.numbers["kappa"] == pytest.approx(1 / (1 - 0.5**2), rel=1e-15)


@pytest.mark.parametrize("path,name", [("stp_steady_state", "pow1.25"), ("stp_steady_state", "pow0.75"),
                                       ("stp_error_after_one_round", "pow1.25")])
def test_section431_catches_a_wrong_steady_state_or_one_round_error(path, name):
    with theory_mutant(path, name).apply():
        out = geometry.section4_3_1("quick", 0)
    f = assert_decided_finding(out)
    assert f.region.explored == 6  # five tests and the exact one-round part
    if path == "stp_error_after_one_round":  # the exact part fails and is named
        assert "one-round error closed form" in f.region.text


def test_section45_late_stream_comes_near_the_limit_and_catches_a_wrong_exponent():
    out = geometry.section4_5("quick", 0)
    assert out.verdict == "holds"
    assert 0.999 < out.numbers["max_multiplier_over_bound_late"] <= 1 + 1e-9  # near 1/β₂, never above
    assert out.numbers["max_multiplier_round_late"] > geometry.S45_LATE_T0
    with theory_mutant("stp_update_noise_bound", "pow0.75").apply():  # above the truth early, below 1/β₂ late
        out = geometry.section4_5("quick", 0)
    assert out.verdict == "violated" and out.numbers["max_multiplier_over_bound_late"] > 1.001
    f = assert_decided_finding(out, "'late' stream")
    assert f.region.explored == 5  # the anisotropy test, the benign stream and the three adversarial ones


def test_section431_holds_and_control(quick, monkeypatch):
    out = quick("section4_3_1")
    assert out.verdict == "holds"
    assert out.numbers["rel_error_round1_delta2"] == pytest.approx(out.numbers["predicted_round1_delta2"], abs=0.05)
    monkeypatch.setattr(td, "stp_contraction", lambda: td.beta2 + (1 - td.beta2) * td.s**2 / 4)  # wrong noise term
    assert geometry.section4_3_1("quick", 0).verdict == "violated"


def test_section45_measured_from_the_kernel_in_the_stable_regime(quick, monkeypatch):
    out = quick("section4_5")
    f = out.numbers
    assert f["sigma_C_over_B_stp"] < 1 and f["vhat_max_stp"] < 10  # stable: v̂ does not diverge
    assert f["max_multiplier_over_bound"] <= 1 + 1e-9
    assert f["anisotropy_stp"] < 2 < 10 < f["anisotropy_post_processing"]
    assert out.verdict == "holds" and out.decisions[0].verdict == "holds"
    monkeypatch.setattr(td, "stp_update_noise_bound",  # the bound without its 1/β₂ factor
                        lambda: (1 - td.beta2**td.t) / (1 - td.beta2 ** (td.t - 1)))
    assert geometry.section4_5("quick", 0).verdict == "violated"


def test_section45_adversarial_streams_reach_the_exact_bound_from_round_two(quick, monkeypatch):
    """Worst case over gradient streams: the pulses and spike streams (no burn-in) come within 1e-3 of the exact
    multiplier bound without exceeding it; the bound taken 5 rounds late (the same limit 1/β₂, smaller early) fails
    on them in the early rounds."""
    f = quick("section4_5").numbers
    for st_ in geometry.S45_STREAMS:
        assert 1 - 1e-3 < f[f"max_multiplier_over_bound_{st_}"] <= 1 + 1e-9
        assert f[f"max_multiplier_round_{st_}"] >= 2
    assert "worst" in quick("section4_5").evidence
    real = td.stp_update_noise_bound()
    monkeypatch.setattr(td, "stp_update_noise_bound", lambda: real.subs(td.t, td.t + 5))
    r = geometry._s45_adversarial_task("spike", 8, 16, 20, 0.99, 2, 0)
    assert r["worst"] > 1.2 and r["round"] <= 5  # the early rounds, where the bound falls fast from (1 + β₂)/β₂


def test_section431_prediction_starts_from_the_error_after_one_round(monkeypatch):
    """The round-1 and round-10 predictions come from stp_error_after_one_round: a first round that contracts
    twice (α²δ instead of αδ, α = 0.925: 0.069|δ₀| off against the 0.03|δ₀| margin) is refuted."""
    monkeypatch.setattr(td, "stp_error_after_one_round", lambda: td.delta * (td.beta2 + (1 - td.beta2) * td.s**2) ** 2)
    assert geometry.section4_3_1("quick", 0).verdict == "violated"

QUICK_SEED0 = {'section4_3_1': 'holds', 'section4_5': 'holds'}


@pytest.mark.parametrize("name", sorted(QUICK_SEED0))
def test_quick_verdicts_and_declared_tests(quick, name):
    """Every claim's quick verdict at seed 0, and its decisions fit its declared share of the family."""
    out = quick(name)
    assert out.verdict == QUICK_SEED0[name], out.evidence
    cid = next(c for c in REGISTRY.values() if c.check.__name__ == name and c.paper == "dp_adam_design")
    assert len(out.decisions) <= cid.tests
    if out.verdict != "holds" or out.decisions:
        assert out.evidence  # the decisive decision's phrase leads the evidence


@pytest.mark.parametrize("name", ["section4_1", "section4_3_1", "section4_3_2", "section4_5"])
def test_evidence_is_a_short_summary_and_points_that_keep_every_number(quick, name):
    """The evidence reads as one short sentence (the verdict, the tests that hold, the exact part) and points (per
    coordinate, δ₀, method or stream, per decision, and the setting); no number of the evidence is lost."""
    out = quick(name)
    assert out.summary.startswith(out.verdict) and len(out.summary) <= 240
    assert not re.search(r"\. [A-Z]", out.summary) and "[" not in out.summary  # one sentence, no intervals
    assert len([p for p in out.points if "test" in p]) == len(out.decisions)
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []
    # and the check can fail: the decisions' rows alone lose numbers of the evidence
    assert lost_numbers(out.evidence, out.summary, [p for p in out.points if "test" in p], out.decisions)
