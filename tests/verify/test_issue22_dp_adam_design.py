"""Issue 22: the dp_adam_design statements added to the ledger — quick verdicts at seed 0 and a mutant each check
catches."""

import math

import pytest

from theory import dp_adam_design as td
from verify import mutants
from verify.papers import dp_adam_design as vd
from verify.registry import REGISTRY, load_all


def _mutant(path: str, name: str):
    """The generic theory mutant ``name`` (x10, x0.1, pow1.25, pow0.75) of ``theory.dp_adam_design.<path>``."""
    fn = {n: f for n, _, f, _ in mutants.THEORY_MUTATIONS}[name]
    return mutants.theory_mutant(f"theory.dp_adam_design.{path}", name, name, fn)


def test_issue22_claims_register():
    load_all()
    for cid in ("section3.2.zero_out_vs_replace", "section4.1", "section4.3.2", "section4.4.2",
                "section5.1.ime_for_free"):
        assert "dp_adam_design." + cid in REGISTRY


def test_section32_zero_out_vs_replace_holds_quick():
    out = vd.section3_2_zero_out_vs_replace("quick", 0)
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
    with _mutant(path, "x0.1").apply():
        out = vd.section3_2_zero_out_vs_replace("quick", 0)
    assert out.verdict == "violated" and out.counterexample is not None


def test_section41_floor_holds_quick():
    out = vd.section4_1("quick", 0)
    assert out.verdict == "holds" and len(out.decisions) == 4
    assert out.numbers["max_record_norm_over_C"] < 1 and out.numbers["floor"] == pytest.approx(100.0)
    assert out.numbers["vhat_coord2"] == pytest.approx(100.0025, rel=0.05)  # the floor: E ḡ² = 0.0025 ≪ 100
    assert out.numbers["lr_ratio_dp"] < 100 < out.numbers["lr_ratio_nonprivate"]


def test_section41_floor_catches_more_noise():
    from kernels import faults

    with faults.inject(noise_scale=3.0):
        out = vd.section4_1("quick", 0)
    assert out.verdict == "violated"


def test_section432_stp_geometry_holds_quick():
    out = vd.section4_3_2("quick", 0)
    assert out.verdict == "holds" and len(out.decisions) == 8
    assert out.numbers["kappa"] == pytest.approx(4 / 3) and out.numbers["factor"] == pytest.approx(4 / 3)
    assert out.numbers["max_scaled_norm_over_C"] < 1 and out.numbers["g2_ratio_spread"] < 0.1


def test_section432_stp_geometry_catches_a_wrong_exponent():
    with _mutant("stp_private_gradient_factor", "pow1.25").apply():
        out = vd.section4_3_2("quick", 0)
    assert out.verdict == "violated"


def test_section442_ime_lacks_self_regularisation_holds_quick():
    out = vd.section4_4_2("quick", 0)
    assert out.verdict == "holds" and len(out.decisions) == 2
    assert out.numbers["pp_max_update_over_bound"] <= 1 + 1e-12
    assert abs(out.numbers["spike_rel_error_t50"]) < 1e-6
    assert out.numbers["p_negative_closed_form"] == pytest.approx(0.3089, abs=1e-3)
    assert out.numbers["ime_mean_abs_update"] > 1e5 * out.numbers["pp_mean_abs_update"]


def test_section442_catches_a_loose_bound_and_a_larger_stepsize():
    from kernels import faults

    with _mutant("postprocessing_update_bound", "x10").apply():
        assert vd.section4_4_2("quick", 0).verdict == "violated"  # the spike stream no longer attains it
    with faults.inject(stepsize_scale=10.0):
        assert vd.section4_4_2("quick", 0).verdict == "violated"


def test_section51_ime_for_free_ordering_holds_quick():
    out = vd.section5_1_ime_for_free("quick", 0)
    assert out.verdict == "holds" and len(out.decisions) == 2
    n = out.numbers
    assert n["loss_nonprivate"] < n["loss_ime_for_free"] < n["loss_ime"]
    assert n["ime_for_free_minus_ime"] < 0


def test_section51_ime_for_free_catches_too_little_ime_noise():
    with _mutant("ime_noise_stds", "x0.1").apply():
        assert vd.section5_1_ime_for_free("quick", 0).verdict == "violated"
