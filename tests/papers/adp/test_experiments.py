"""verify.papers.adp.experiments: Table 1's trend (never a refutation; its kernel probe against the NumPy twin)
and footnote 3's calibration and readings, with the declared equivalence of its exponent mutant."""

import math
import re

import numpy as np
import pytest
import sympy as sp

from kernels import faults
from tests.papers.adp.mutant_support import theory_mutation
from tests.verify.evidence_support import lost_numbers
from theory import adp as tadp
from verify.papers.adp import experiments


def test_table1_at_matched_epsilon_is_never_a_refutation():
    out = experiments.table1("quick", 0)
    g = out.numbers["growth_eps1"]
    assert out.verdict in ("holds", "inconclusive")  # a failure to reproduce is not a refutation
    assert np.isfinite(g) and g > 0
    assert set(k for k in out.numbers if k.startswith("advantage_eps1_")) == {"advantage_eps1_T300",
                                                                              "advantage_eps1_T3000"}
    assert len(out.decisions) == 1
    if out.verdict == "inconclusive":
        assert "not a refutation" in out.evidence
    assert out.verdict == "inconclusive"  # known at quick, seed 0: ADP-SGD is behind DP-SGD at a matched ε


def test_table1_summary_and_points_keep_every_number_of_its_evidence():
    out = experiments.table1("quick", 0)
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("inconclusive: Table 1's trend") and "not a refutation" in s
    assert [p["verdict"] for p in out.points if p["part"] == "decision"] == [str(d.verdict) for d in out.decisions]
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


def test_footnote3_summary_and_points_keep_every_number_of_its_evidence():
    out = experiments.footnote3("quick", 0)
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("holds (exact)") and "certifies 5/5" in s
    assert [p["ε̄"] for p in out.points] == list(experiments.FOOTNOTE3["eps_bar"])
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_footnote3_calibration_and_readings_are_pinned():
    """ε̄ = 0.8: σ² of eq. (6) at ε = 12.8, n = 50 000, T = 11 700, δ = 1e-5 gives z = 256σ ≈ 8.50; the
    accountants put the runs' ε between 0.21 (PLD) and 0.33 (the 2016 moments accountant), around the stated 0.29."""

    from verify.papers.adp.experiments import FOOTNOTE3, footnote3, footnote3_multiplier, footnote3_readings

    b_delta = math.log(16 * 11_700 / (50_000 * 1e-5)) * math.log(1.25 / 1e-5)
    sigma = math.sqrt(16**2 * b_delta / (50_000**2 * 12.8**2) * 11_700)
    assert footnote3_multiplier(0.8) == pytest.approx(256 * sigma, rel=1e-12)
    r = footnote3_readings(footnote3_multiplier(0.8))
    assert r["pld_lower"] <= r["pld_upper"] <= r["rdp"] <= r["moments_accountant_2016"]
    assert 0.2 < r["pld_upper"] < 0.29 < r["moments_accountant_2016"] < 0.34
    out = footnote3("quick", 0)
    assert out.verdict == "holds" and out.numbers["certified"] == len(FOOTNOTE3["stated"])
    assert out.numbers["reproduced_to_two_decimals"] == 0


@pytest.mark.parametrize("fault", [None, dict(noise_scale=3.0), dict(stepsize_scale=10.0)])
def test_table1_kernel_probe_passes_unmutated_and_fails_under_a_kernel_fault(fault):
    sigmas = {"dp": 0.75, "adp": 0.4}
    if fault is None:
        why, numbers = experiments._table1_kernel_probe(2000, 10, sigmas, 20.0, 0)
        assert why == "" and max(numbers.values()) <= 1e-9
        return
    with faults.inject(**fault):
        why, numbers = experiments._table1_kernel_probe(2000, 10, sigmas, 20.0, 0)
    assert "dp: run_adp" in why and "adp: run_adp" in why and min(numbers.values()) > 1e-3


def test_footnote3_pow075_gives_more_noise_at_each_of_the_five_points():
    """The reason declared for adp.footnote3 / theorem4_1_variance:pow0.75: at every point of the footnote the
    mutated σ² exceeds eq. (6)'s (exact), and the multiplier the check derives grows with it."""

    from verify.mutants import EQUIVALENT

    assert "46× to 132×" in EQUIVALENT[("adp.footnote3", "theorem4_1_variance:pow0.75")]
    f = experiments.FOOTNOTE3
    e = tadp.theorem4_1_variance()
    mutant = theory_mutation("theory.adp.theorem4_1_variance", "pow0.75")
    with mutant.apply():
        m = tadp.theorem4_1_variance()
        z_mut = [experiments.footnote3_multiplier(eb) for eb in f["eps_bar"]]
    ratios = []
    for eb in f["eps_bar"]:
        sub = {tadp.G: 1, tadp.S_inv_alpha2: f["T"], tadp.T: f["T"], tadp.delta: sp.Rational(1, 10**5),
               tadp.epsilon: 16 * sp.nsimplify(eb), tadp.n: f["n"]}
        ratios.append(sp.N(m.subs(sub) / e.subs(sub), 30))
    assert all(r > 46 for r in ratios) and max(ratios) < 133
    assert all(zm > 6 * experiments.footnote3_multiplier(eb) for zm, eb in zip(z_mut, f["eps_bar"]))
